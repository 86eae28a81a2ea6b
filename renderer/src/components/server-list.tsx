/** The servers screen's list: every configured server, in name order. */
import { useShallow } from 'zustand/react/shallow';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { ServerRow } from './server-row';

export function ServerList() {
  const names = useRoot(useShallow(serversSelectors.names));
  const loaded = useRoot(serversSelectors.loaded);
  const error = useRoot(serversSelectors.error);

  return (
    <section className="panel" aria-labelledby="servers-heading">
      <h2 id="servers-heading">Servers</h2>
      {error && (
        <p className="notice notice-error" role="alert">
          Could not load the servers: {error.message}
          {error.remedy ? ` ${error.remedy}` : ''}
        </p>
      )}
      {!loaded && !error && <p className="muted">Loading…</p>}
      {loaded && names.length === 0 && (
        <p className="muted">No servers yet. Add one with the form below.</p>
      )}
      {names.length > 0 && (
        <ul className="server-list" aria-label="Configured servers">
          {names.map((name) => (
            <ServerRow key={name} name={name} />
          ))}
        </ul>
      )}
    </section>
  );
}
