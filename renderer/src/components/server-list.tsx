/**
 * The servers screen's list: every configured server, in name order, in a scroll container of
 * its own. Only the rows near its visible part are rendered, each placed by a transform, so a
 * long list costs what a screenful does while activity streams in and while it scrolls.
 */
import { useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { ListHoldProvider, useHeldKeys } from './row-hold';
import { ServerRow } from './server-row';
import { useScrollWindow } from './use-scroll-window';
import { showUntrusted } from '../../../app/text/untrusted-text';

/** A row's height before it has been measured (a row with a few chips and its activity). */
const ROW_ESTIMATE = 150;
/** Rows rendered beyond each edge of the visible part, in px. */
const OVERSCAN_PX = 300;

/**
 * Every length of list is windowed, short ones too. What unmounted a row, and closed what was
 * open in it, was the windowing, even with three rows: a remove confirmation on a just-made copy
 * was lost when the page's size changed under it (the list's height follows the page's, and
 * the rows rendered follow the list's height). A row holding something open (a confirmation,
 * an add field) is now held rendered wherever the window of rows goes (`row-hold`), so rows
 * added above it, a scroll, a resize or a refetch of the list leave it as it is. Rendering every
 * row of a short list hid the cause without removing it, and would be a second path that the
 * long lists never take.
 */
function ServerRows(props: { names: readonly string[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [held, hold] = useHeldKeys();
  const win = useScrollWindow(scrollRef, props.names, ROW_ESTIMATE, OVERSCAN_PX, held);
  return (
    <ListHoldProvider hold={hold}>
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
    </ListHoldProvider>
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
          Could not load the servers: {showUntrusted(error.message)}
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
