/**
 * Forgetting a tool's pinned definition, asked twice: for a tool the server no longer offers, or
 * one whose pin the user wants taken anew. What it gives up is said before it is done: the next
 * listing is pinned without asking, so a change made meanwhile is not caught as drift.
 */
import { useState } from 'react';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';

export function ToolForget(props: { server: string; tool: string }) {
  const forget = useRoot((s) => s.forgetTool);
  const [asking, setAsking] = useState(false);
  const [status, setStatus] = useState('');
  const confirm = async () => {
    setStatus('Forgetting…');
    const done = await forget(props.server, props.tool);
    setAsking(false);
    if (!done.ok) {
      const e = done.error;
      setStatus(`Not forgotten: ${e.message}${e.remedy ? ` ${e.remedy}` : ''}`);
    } else setStatus(done.value ? '' : 'It was not pinned any more.');
  };
  if (!asking)
    return (
      <div className="tool-forget">
        <button
          type="button"
          className="link"
          aria-label={`Forget the pinned definition of ${showUntrusted(props.tool)}`}
          onClick={() => {
            setAsking(true);
            setStatus('');
          }}
        >
          Forget pinned definition…
        </button>
        {status && (
          <span role="status" className="muted">
            {showUntrusted(status)}
          </span>
        )}
      </div>
    );
  return (
    <div
      className="tool-forget notice notice-warn"
      role="group"
      aria-label={`Forget ${showUntrusted(props.tool)}`}
    >
      <p>
        The next time the server lists this tool, Warden pins what it then says without asking: a
        change made meanwhile is not shown as drift. Use it for a tool the server no longer offers,
        or to take its definition anew.
      </p>
      <button type="button" onClick={() => void confirm()}>
        Forget
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </div>
  );
}
