/** Reads the session token that `warden serve` put in the page URL (`#token=` or `?token=`). */

/** The token from a URL's fragment or query, or undefined when absent or malformed. */
export function tokenFromLocation(location: { hash: string; search: string }): string | undefined {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  const fromQuery = new URLSearchParams(location.search).get('token');
  const token = fromHash ?? fromQuery;
  return token !== null && /^[A-Za-z0-9_-]{16,128}$/.test(token) ? token : undefined;
}

/** The contract WebSocket URL on the same host and port as the page. */
export function socketUrlFor(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws`;
}
