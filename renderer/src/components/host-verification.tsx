/** Host status: the last escape probes run in each sandbox backend, and "Verify now". */
import { hostSelectors } from '../store/host/host-slice';
import { useRoot } from '../store/store-context';
import { CheckAction } from './check-action';

const statusText = { refused: 'refused', escaped: 'ESCAPED', 'not-run': 'not run' } as const;

export function HostVerification() {
  const report = useRoot(hostSelectors.doctor);
  const verifying = useRoot(hostSelectors.verifying);
  const error = useRoot(hostSelectors.verifyError);
  const verifyNow = useRoot((s) => s.verifyNow);
  if (!report?.backend.available) return null;
  const results = report.verifications ?? [];
  return (
    <section aria-labelledby="verify-heading" data-verification>
      <h3 id="verify-heading">Proof of enforcement</h3>
      <p className="hint">
        Real escape attempts inside the sandbox: each must be refused. They run again by themselves
        when the kernel, the sandbox version or AppArmor changes.
      </p>
      <CheckAction
        run={verifyNow}
        running={verifying}
        label="Verify now"
        runningLabel="Verifying…"
        failed="Could not verify"
        error={error}
      />
      {results.length === 0 && !verifying && (
        <p className="muted">Not verified on this host yet.</p>
      )}
      {results.map((v) => (
        <div key={v.backend} data-verified-backend={v.backend} data-passed={v.passed}>
          <p>
            <span className={`badge ${v.passed ? 'badge-sandboxed' : 'badge-off'}`}>
              {v.passed ? 'verified' : 'failed'}
            </span>{' '}
            {v.backend} at {new Date(v.at).toLocaleString()}
          </p>
          <ul className="checks">
            {v.probes.map((p) => (
              <li
                key={p.id}
                data-probe={p.id}
                className={`check check-${p.status === 'refused' ? 'ok' : 'missing'}`}
              >
                <span className={`tag tag-${p.status === 'refused' ? 'ok' : 'missing'}`}>
                  {statusText[p.status]}
                </span>{' '}
                <strong>{p.label}</strong>: {p.detail}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
