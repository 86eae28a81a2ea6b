/** A server's instances as a table: the client that opened each (by name), state, revision. */
import type { InstanceView } from '../../../app/contract/instances';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';

function stateText(i: InstanceView): string {
  switch (i.state.kind) {
    case 'running':
      return i.ready === false ? 'running, not answered yet' : 'ready';
    case 'starting':
      return `starting (attempt ${i.state.attempt + 1})`;
    case 'stopping':
      return 'stopping';
    case 'exited':
      return `exited: ${i.state.reason}`;
    case 'failed':
      return `failed: ${i.state.launchError?.message ?? i.state.reason}`;
  }
}

/** Sessions Warden opens itself, named by what opened them rather than by their handshake. */
const ownLabels: Record<string, string> = {
  warden: 'Warden (started here)',
  'Warden Try it': 'Warden Try it',
};

const transportLabels: Record<string, string> = { http: 'HTTP client', stdio: 'stdio client' };

export function DetailInstances(props: {
  server: string;
  instances: readonly InstanceView[];
  revision: number;
}) {
  const stop = useRoot((s) => s.stopInstance);
  const restart = useRoot((s) => s.restartInstance);
  if (props.instances.length === 0) return <p className="muted">No instances.</p>;
  return (
    <table className="table instances-table" aria-label={`Instances of ${props.server}`}>
      <thead>
        <tr>
          <th scope="col">Client</th>
          <th scope="col">State</th>
          <th scope="col">Revision</th>
          <th scope="col">Sandbox</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {[...props.instances].reverse().map((i) => {
          const live = i.state.kind === 'running' || i.state.kind === 'starting';
          const own = ownLabels[i.client];
          const named = own === undefined ? i.clientName : undefined;
          const label = own ?? named ?? transportLabels[i.client] ?? i.client;
          return (
            <tr key={i.id} data-instance={i.id}>
              <th scope="row">
                {showUntrusted(label)}
                <span className="muted instance-id" title={i.id}>
                  {named ? `via ${showUntrusted(i.client)} · ` : ''}
                  {i.id.slice(0, 8)}
                </span>
              </th>
              <td>
                {showUntrusted(stateText(i))}
                {i.state.kind === 'running' && i.state.pid !== undefined && (
                  <span className="instance-pid">, pid {i.state.pid}</span>
                )}
              </td>
              <td>
                {i.revision}
                {live && i.revision < props.revision && (
                  <span className="tag tag-warn">restart to apply {props.revision}</span>
                )}
              </td>
              <td>{i.backend ?? '—'}</td>
              <td className="cell-actions">
                {live && (
                  <>
                    <button type="button" className="small" onClick={() => void restart(i.id)}>
                      Restart<span className="visually-hidden"> instance {i.id}</span>
                    </button>
                    <button type="button" className="small" onClick={() => void stop(i.id)}>
                      Stop<span className="visually-hidden"> instance {i.id}</span>
                    </button>
                  </>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
