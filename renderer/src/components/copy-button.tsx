/**
 * A Copy button: puts `text` on the clipboard and says so beside it for a moment. `text` may be
 * made at the click (a snippet that gets its token only when copied).
 */
import { useState } from 'react';

export function CopyButton(props: { text: string | (() => Promise<string>); label: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | undefined>();
  const copy = async () => {
    try {
      const text = typeof props.text === 'string' ? props.text : await props.text();
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone(undefined), 2000);
  };
  return (
    <span className="copy">
      <button type="button" className="small" onClick={() => void copy()}>
        Copy<span className="visually-hidden"> {props.label}</span>
      </button>
      <span className="copy-status" aria-live="polite">
        {done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed: select and copy' : ''}
      </span>
    </span>
  );
}
