/** Says how a server is isolated, truthfully: sandboxed, not sandboxed (red), or cannot sandbox. */
import type { ServerView } from '../../../app/contract/servers';
import { isolationLabel } from './isolation-label';

export function IsolationBadge(props: { isolation: ServerView['isolation'] }) {
  const { isolation } = props;
  const title =
    isolation.kind === 'sandboxed'
      ? isolation.backend === 'landlock'
        ? 'Runs in the Landlock sandbox, without namespaces: the Host screen lists what it does not give'
        : `Runs in the ${isolation.backend} sandbox`
      : isolation.kind === 'off'
        ? 'Isolation is off for this server: it runs with your full user rights'
        : isolation.kind === 'remote'
          ? "Runs elsewhere: Warden relays it through its gateway and applies the network policy to its URL; it is not in Warden's sandbox"
          : isolation.remedy;
  return (
    <span className={`badge badge-${isolation.kind}`} title={title} data-isolation={isolation.kind}>
      {isolationLabel(isolation)}
    </span>
  );
}
