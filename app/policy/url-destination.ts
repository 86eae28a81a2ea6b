/**
 * The destination a URL argument names, read strictly. URL parsers disagree on backslashes,
 * credentials (`user@host`), control characters and percent-encoded hosts, so that one parser
 * can see an allowed host where the server's parser sees another; such URLs are refused rather
 * than guessed at.
 */
import { type Result, err, ok } from '../result';
import { type Destination, parseDestination } from './network-patterns';

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  http: 80,
  https: 443,
  ws: 80,
  wss: 443,
};

const URL_HEAD = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/;

/** The host and port of an `http(s)://` or `ws(s)://` URL, or why it is refused. */
export function urlDestination(text: string): Result<Destination, string> {
  // Control characters, spaces and backslashes are read differently by different parsers.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x5c) return err('is not a plain URL');
  }
  const head = URL_HEAD.exec(text);
  if (!head) return err('is not a URL with a host');
  const scheme = head[1]!.toLowerCase();
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined) return err(`uses ${scheme}:, not http(s) or ws(s)`);
  const authority = head[2]!;
  if (authority.includes('@')) return err('carries a user name or password in the URL');
  const parts = AUTHORITY.exec(authority);
  if (!parts) return err('has a host that is not a plain host name or address');
  const port = parts[2] === undefined ? defaultPort : Number(parts[2]);
  const dest = parseDestination(parts[1]!, port);
  return dest.ok ? ok(dest.value) : err('has a host that is not a plain host name or address');
}
