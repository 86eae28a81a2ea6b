/**
 * Per-server exceptions to the inherited guards (a hidden path a server may see), always shown in
 * red: on a server's row and detail (`ServerExceptions`) and, for every server, on the Policy
 * screen (`PolicyExceptions`).
 */
import { useShallow } from 'zustand/react/shallow';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';

/** The hidden paths one server is excepted from, in red, or nothing. */
export function ServerExceptions(props: { server: string; unhide: readonly string[] | undefined }) {
  if (!props.unhide || props.unhide.length === 0) return null;
  return (
    <p className="guard-exception" data-exceptions={props.server}>
      <strong>Exception:</strong> this server may see{' '}
      {props.unhide.length === 1 ? 'the hidden path' : 'the hidden paths'}{' '}
      {props.unhide.map((p, i) => (
        <span key={p}>
          {i > 0 ? ', ' : ''}
          <span className="exception-path">{showUntrusted(p)}</span>
        </span>
      ))}
      .
    </p>
  );
}

/** Every server with an exception, on the Policy screen. */
export function PolicyExceptions() {
  const rows = useRoot(
    useShallow((s) =>
      s.servers
        .filter((v) => (v.server.policy.guards?.unhide ?? []).length > 0)
        .map(
          (v) => `${v.server.name}\u0000${(v.server.policy.guards?.unhide ?? []).join('\u0000')}`,
        ),
    ),
  );
  const navigate = useRoot((s) => s.navigate);
  return (
    <section className="policy-section" aria-labelledby="exceptions-heading">
      <h3 id="exceptions-heading">Exceptions</h3>
      {rows.length === 0 ? (
        <p className="muted">No server is excepted from a hidden path.</p>
      ) : (
        <ul className="exception-list">
          {rows.map((row) => {
            const [name = '', ...paths] = row.split('\u0000');
            return (
              <li key={name}>
                <button
                  type="button"
                  className="link"
                  onClick={() => navigate({ kind: 'server', server: name })}
                >
                  {showUntrusted(name)}
                </button>
                <ServerExceptions server={name} unhide={paths} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
