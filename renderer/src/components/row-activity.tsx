/**
 * A server's live activity on its row: its last few tool calls and network decisions (what,
 * outcome, when) as they happen, with counts, and a one-click grant for the last refused host.
 */
import { memo } from 'react';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { type ActivityItem, NO_ACTIVITY } from '../store/activity/activity-fold';
import { useRoot } from '../store/store-context';
import { clockTime } from './display-format';

const outcomeWords: Record<ActivityItem['outcome'], string> = {
  ok: 'ok',
  refused: 'refused',
  error: 'error',
  pending: 'pending',
};

const Item = memo(function Item(props: { item: ActivityItem }) {
  const { item } = props;
  return (
    <li className={`activity-item activity-${item.outcome}`} data-activity={item.kind}>
      <span className={`outcome outcome-pill-${item.outcome}`}>{outcomeWords[item.outcome]}</span>
      <span className="activity-label">
        <span className="visually-hidden">{item.kind === 'call' ? 'tool ' : 'network '}</span>
        {item.kind === 'network' && <span aria-hidden="true">⇄ </span>}
        {showUntrusted(item.label)}
      </span>
      <time className="activity-time" dateTime={item.ts}>
        {clockTime(item.ts)}
      </time>
    </li>
  );
});

export function RowActivity(props: {
  server: string;
  /** Offers to allow the last refused host; absent when it is allowed already. */
  onAllow?: (host: string) => void;
  allowed: (host: string) => boolean;
}) {
  const a = useRoot((s) => s.activity[props.server]) ?? NO_ACTIVITY;
  const refusedHost =
    a.lastRefusedHost && !props.allowed(a.lastRefusedHost) ? a.lastRefusedHost : undefined;
  return (
    <div className="row-activity">
      <span className="row-label">Activity</span>
      {a.recent.length === 0 ? (
        <span className="muted activity-none">no calls or network use yet</span>
      ) : (
        <ul className="activity" aria-label={`Recent activity of ${props.server}`}>
          {a.recent.map((item) => (
            <Item key={item.id} item={item} />
          ))}
        </ul>
      )}
      <span className="activity-counts" data-counts>
        {a.calls} call{a.calls === 1 ? '' : 's'}
        {a.callErrors > 0 && <span className="count-bad"> · {a.callErrors} failed</span>}
        {' · '}
        {a.network} network
        {a.networkRefused > 0 && (
          <span className="count-refused"> · {a.networkRefused} refused</span>
        )}
      </span>
      {refusedHost && props.onAllow && (
        <button type="button" className="small" onClick={() => props.onAllow?.(refusedHost)}>
          Allow {showUntrusted(refusedHost)}
          <span className="visually-hidden"> for {props.server}</span>
        </button>
      )}
    </div>
  );
}
