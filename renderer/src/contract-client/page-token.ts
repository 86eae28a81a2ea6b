/**
 * Reads what the page's fragment carries (never sent to a server, so never in its logs): a
 * script's session token (`#token=`) or the one-time sign-in code `/login` forwarded (`#code=`).
 */

const credential = /^[A-Za-z0-9_-]{16,128}$/;

/** The token from a URL's fragment, or undefined when absent or malformed. */
export function tokenFromLocation(location: { hash: string }): string | undefined {
  return fromFragment(location.hash, 'token');
}

/** The one-time sign-in code from a URL's fragment, or undefined when absent or malformed. */
export function codeFromLocation(location: { hash: string }): string | undefined {
  return fromFragment(location.hash, 'code');
}

/** The contract WebSocket URL on the same host and port as the page. */
export function socketUrlFor(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws`;
}

function fromFragment(hash: string, name: string): string | undefined {
  const value = new URLSearchParams(hash.replace(/^#/, '')).get(name);
  return value !== null && credential.test(value) ? value : undefined;
}
