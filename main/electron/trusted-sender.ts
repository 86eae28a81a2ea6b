/**
 * Which IPC senders are trusted: only the top frame of a window showing the app's own renderer
 * file. Anything else (an iframe, a page navigated elsewhere, a destroyed frame) is refused,
 * whatever it sends. No Electron import, so it is tested in plain Node.
 */
import { pathToFileURL } from 'node:url';

/** The part of an IPC event this check reads (Electron's IpcMainInvokeEvent fits). */
export interface SenderLike {
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

/** True when `url` is exactly the renderer's index file, ignoring only its fragment. */
export function isTrustedRendererUrl(url: string, rendererIndex: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const expected = pathToFileURL(rendererIndex);
  return (
    parsed.protocol === 'file:' &&
    parsed.host === expected.host &&
    parsed.pathname === expected.pathname &&
    parsed.search === ''
  );
}

/** Builds the sender check for the renderer at `rendererIndex` (an absolute file path). */
export function trustedSender(rendererIndex: string): (event: SenderLike) => boolean {
  return (event) => {
    const frame = event.senderFrame;
    return (
      frame !== null && frame.parent === null && isTrustedRendererUrl(frame.url, rendererIndex)
    );
  };
}
