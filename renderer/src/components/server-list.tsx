/**
 * The servers screen's list: every configured server, in name order, in a scroll container of
 * its own. Only the rows near its visible part are rendered, each placed by a transform, so a
 * long list costs what a screenful does while activity streams in and while it scrolls.
 */
import { useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { ServerRow } from './server-row';
import { useScrollWindow } from './use-scroll-window';

/** A row's height before it has been measured (a row with a few chips and its activity). */
const ROW_ESTIMATE = 150;
/** Rows rendered beyond each edge of the visible part, in px. */
const OVERSCAN_PX = 300;
/**
 * Lists up to this long render every row: windowing saves nothing there, and a row that stays
 * mounted keeps what the user has open in it (a confirmation, a half-typed domain) whatever the
 * window does meanwhile.
 */
const EVERY_ROW_UP_TO = 40;

function ServerRows(props: { names: readonly string[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const overscan = props.names.length <= EVERY_ROW_UP_TO ? Number.POSITIVE_INFINITY : OVERSCAN_PX;
  const win = useScrollWindow(scrollRef, props.names, ROW_ESTIMATE, overscan);
  return (
    <div ref={scrollRef} className="server-scroll" style={{ height: win.total }}>
      <ul className="server-list" aria-label="Configured servers" style={{ height: win.total }}>
        {win.rows.map((row) => (
          <ServerRow
            key={row.key}
            name={row.key}
            measure={win.measure}
            top={row.top}
            position={row.index + 1}
            total={props.names.length}
          />
        ))}
      </ul>
    </div>
  );
}

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
      {names.length > 0 && <ServerRows names={names} />}
    </section>
  );
}
