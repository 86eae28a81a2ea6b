/** A server's instances: who opened each, its state, the revision it runs, restart and stop. */
import { useShallow } from 'zustand/react/shallow';
import type { InstanceView } from '../../../app/contract/instances';
import { instancesSelectors } from '../store/instances/instances-selectors';
import { useRoot } from '../store/store-context';

function stateText(i: InstanceView): string {
  switch (i.state.kind) {
    case 'running':
      return `running${i.state.pid ? `, pid ${i.state.pid}` : ''}`;
    case 'starting':
      return `starting (attempt ${i.state.attempt + 1})`;
    case 'stopping':
      return 'stopping';
    case 'exited':
      return `exited: ${i.state.reason}`;
    case 'failed':
      return `failed: ${i.state.isolation?.message ?? i.state.reason}`;
  }
}

export function ServerInstances(props: { server: string; revision: number }) {
  const live = useRoot(useShallow(instancesSelectors.liveOf(props.server)));
  const stop = useRoot((s) => s.stopInstance);
  const restart = useRoot((s) => s.restartInstance);
  if (live.length === 0) return null;
  return (
    <ul className="instances" aria-label={`Instances of ${props.server}`}>
      {live.map((i) => (
        <li key={i.id} data-instance={i.id}>
          <span>
            <code>{i.id}</code> for {i.client}: {stateText(i)}, revision {i.revision}
            {i.backend ? `, ${i.backend}` : ''}
          </span>
          {i.revision < props.revision && (
            <span className="tag tag-warn">restart to apply revision {props.revision}</span>
          )}
          <button type="button" onClick={() => void restart(i.id)}>
            Restart<span className="visually-hidden"> instance {i.id}</span>
          </button>
          <button type="button" onClick={() => void stop(i.id)}>
            Stop<span className="visually-hidden"> instance {i.id}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
