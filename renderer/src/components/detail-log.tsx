/**
 * A server's stderr, per instance: the last lines the core keeps (bounded), refreshed while the
 * screen is open, filtered by a search as it is typed. Every line is untrusted text.
 */
import { useId, useState } from 'react';
import type { InstanceView } from '../../../app/contract/instances';
import { showUntrusted } from '../../../app/text/untrusted-text';

export function DetailLog(props: { server: string; instances: readonly InstanceView[] }) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [picked, setPicked] = useState<string | undefined>();
  const list = [...props.instances].reverse();
  const shown = list.find((i) => i.id === picked) ?? list[0];
  if (!shown) return <p className="muted">No instance has run since Warden started.</p>;
  const q = query.trim().toLowerCase();
  const lines = shown.stderrTail.filter((l) => q === '' || l.toLowerCase().includes(q));
  return (
    <div className="log">
      <div className="log-bar">
        <label htmlFor={`${id}-inst`}>Instance</label>
        <select id={`${id}-inst`} value={shown.id} onChange={(e) => setPicked(e.target.value)}>
          {list.map((i) => (
            <option key={i.id} value={i.id}>
              {showUntrusted(i.clientName ?? i.client)} · {i.state.kind} · {i.id.slice(0, 8)}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-q`}>Search</label>
        <input
          id={`${id}-q`}
          type="search"
          value={query}
          placeholder="words in the log"
          onChange={(e) => setQuery(e.target.value)}
        />
        <span className="muted" aria-live="polite">
          {q ? `${lines.length} of ${shown.stderrTail.length} lines` : `${lines.length} lines`}
        </span>
      </div>
      <pre className="log-lines" aria-label={`stderr of ${props.server}`} tabIndex={0}>
        {lines.length === 0
          ? q
            ? 'No line matches.'
            : 'Nothing on stderr yet.'
          : showUntrusted(lines.join('\n'), { multiline: true })}
      </pre>
    </div>
  );
}
