/**
 * Host status: what `warden doctor` reports: the backend, each check with its remedy, the limits;
 * and whether Warden starts at login.
 */
import { useShallow } from 'zustand/react/shallow';
import { type LimitName, limitNames } from '../../../app/policy/policy-schema';
import { hostSelectors } from '../store/host/host-slice';
import { CheckAction } from './check-action';
import { HostAutostart } from './host-autostart';
import { HostSecrets } from './host-secrets';
import { HostVerification } from './host-verification';
import { useRoot } from '../store/store-context';
import { checkStatusLabels, limitLabels } from './limit-labels';
import { showUntrusted } from '../../../app/text/untrusted-text';

export function HostScreen() {
  const report = useRoot(hostSelectors.doctor);
  const problems = useRoot(hostSelectors.problems);
  const check = useRoot(
    useShallow((s) => ({
      run: s.loadDoctor,
      running: hostSelectors.loading(s),
      error: hostSelectors.error(s),
    })),
  );
  return (
    <section className="panel" aria-labelledby="host-heading">
      <h2 id="host-heading">Host status</h2>
      <CheckAction
        {...check}
        label="Check again"
        runningLabel="Checking…"
        failed="Could not check the host"
      />
      {problems.map((p) => (
        <p key={p.at + p.kind} className="notice notice-error">
          Config file {p.kind}: {showUntrusted(p.message)}
          {p.movedTo ? ` (kept aside as ${p.movedTo})` : ''}
        </p>
      ))}
      {report && (
        <>
          <p data-backend={report.backend.name} data-available={report.backend.available}>
            Sandbox backend: <strong>{report.backend.name}</strong>
            {report.backend.version ? ` ${report.backend.version}` : ''} on {report.platform}/
            {report.arch}:{' '}
            <span className={`badge ${report.backend.available ? 'badge-sandboxed' : 'badge-off'}`}>
              {report.backend.available ? 'available' : 'not available'}
            </span>
          </p>
          <h3>Checks</h3>
          <ul className="checks">
            {report.checks.map((c) => (
              <li
                key={c.id}
                className={`check check-${c.status}`}
                data-check={c.id}
                data-status={c.status}
              >
                <span className={`tag tag-${c.status}`}>{checkStatusLabels[c.status]}</span>
                <div>
                  <strong>{c.label}</strong>
                  <span className="muted"> {c.detail}</span>
                  {c.remedy && <p className="remedy">To fix: {c.remedy}</p>}
                </div>
              </li>
            ))}
          </ul>
          <h3>What is enforceable</h3>
          <table className="table limits">
            <thead>
              <tr>
                <th scope="col">Limit</th>
                <th scope="col">Enforced</th>
                <th scope="col">How, or why not</th>
              </tr>
            </thead>
            <tbody>
              {limitNames.map((n: LimitName) => (
                <tr key={n} data-limit={n}>
                  <th scope="row">{limitLabels[n]}</th>
                  <td>
                    <span
                      className={`outcome outcome-pill-${report.limits[n]?.partial ? 'pending' : report.limits[n]?.enforced ? 'ok' : 'refused'}`}
                    >
                      {report.limits[n]?.partial
                        ? 'Per process'
                        : report.limits[n]?.enforced
                          ? 'Yes'
                          : 'No'}
                    </span>
                  </td>
                  <td>{report.limits[n]?.how ?? 'not reported'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <HostVerification />
        </>
      )}
      {!report && !check.error && <p className="muted">Checking this host…</p>}
      <HostSecrets />
      <HostAutostart />
    </section>
  );
}
