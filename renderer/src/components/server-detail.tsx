/**
 * One server in full: health and isolation, how to connect a client, its tools with "Try it",
 * its instances by client name, and its stderr log. Instances are refreshed every second while
 * the screen is open, so the log follows the server.
 */
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { instancesSelectors, runStateLabel } from '../store/instances/instances-selectors';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { DetailInstances } from './detail-instances';
import { DetailLog } from './detail-log';
import { DetailSignIn } from './detail-sign-in';
import { DetailSnippets } from './detail-snippets';
import { DetailTools } from './detail-tools';
import { ServerExceptions } from './guard-exceptions';
import { IsolationBadge } from './isolation-badge';

const REFRESH_MS = 1000;

export function ServerDetail(props: { name: string }) {
  const view = useRoot(serversSelectors.byName(props.name));
  const run = useRoot(useShallow(instancesSelectors.runState(props.name)));
  const instances = useRoot(useShallow((s) => s.instances.filter((i) => i.server === props.name)));
  const navigate = useRoot((s) => s.navigate);
  const loadInstances = useRoot((s) => s.loadInstances);
  useEffect(() => {
    const t = setInterval(() => void loadInstances(), REFRESH_MS);
    return () => clearInterval(t);
  }, [loadInstances]);
  if (!view) {
    return (
      <section className="panel">
        <p className="muted">No server named “{showUntrusted(props.name)}”.</p>
        <button type="button" onClick={() => navigate({ kind: 'servers' })}>
          Back to the servers
        </button>
      </section>
    );
  }
  const { server } = view;
  return (
    <section
      className="panel server-detail"
      aria-labelledby="detail-heading"
      data-detail={server.name}
    >
      <div className="panel-head">
        <button type="button" className="small" onClick={() => navigate({ kind: 'servers' })}>
          ← Servers
        </button>
        <h2 id="detail-heading">{showUntrusted(server.name)}</h2>
        <span className={`health health-${run.kind}`} data-run-state={run.kind}>
          {runStateLabel(run)}
        </span>
        <IsolationBadge isolation={view.isolation} />
        <span className="muted revision">rev {server.revision}</span>
        <button
          type="button"
          className="small"
          onClick={() => navigate({ kind: 'policy', server: server.name })}
        >
          Edit policy<span className="visually-hidden"> of {server.name}</span>
        </button>
      </div>
      <p className="command">
        <code>{showUntrusted(view.commandLine)}</code>
      </p>
      <ServerExceptions server={server.name} guards={server.policy.guards} />
      <DetailSignIn name={server.name} />
      <div className="detail-grid">
        <section aria-labelledby="detail-connect">
          <h3 id="detail-connect">Connect a client</h3>
          <DetailSnippets name={server.name} />
        </section>
        <section aria-labelledby="detail-tools">
          <h3 id="detail-tools">Tools</h3>
          <DetailTools server={server.name} tools={server.policy.tools} />
        </section>
      </div>
      <section aria-labelledby="detail-instances">
        <h3 id="detail-instances">Instances</h3>
        <DetailInstances server={server.name} instances={instances} revision={server.revision} />
      </section>
      <section aria-labelledby="detail-log">
        <h3 id="detail-log">Log (stderr)</h3>
        <DetailLog server={server.name} instances={instances} />
      </section>
    </section>
  );
}
