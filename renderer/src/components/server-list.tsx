/**
 * The servers screen's list: every configured server, in name order. Only the rows near the
 * viewport are rendered (the rest stand as their measured height), so a long list costs what a
 * screenful does while activity streams in.
 */
import { useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { ServerRow } from './server-row';
import { usePageWindow } from './use-page-window';

/** A row's height before it has been measured (a row with a few chips and its activity). */
const ROW_ESTIMATE = 150;
/** Rows rendered beyond each edge of the viewport, in px. */
const OVERSCAN_PX = 600;

export function ServerList() {
  const names = useRoot(useShallow(serversSelectors.names));
  const loaded = useRoot(serversSelectors.loaded);
  const error = useRoot(serversSelectors.error);
  const listRef = useRef<HTMLUListElement>(null);
  const win = usePageWindow(listRef, names, ROW_ESTIMATE, OVERSCAN_PX);

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
        <ul
          ref={listRef}
          className="server-list"
          aria-label="Configured servers"
          style={{ paddingTop: win.before, paddingBottom: win.after }}
        >
          {names.slice(win.first, win.end).map((name, k) => (
            <ServerRow
              key={name}
              name={name}
              measure={win.measure}
              position={win.first + k + 1}
              total={names.length}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
