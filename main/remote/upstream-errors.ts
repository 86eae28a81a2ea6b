/**
 * What a remote upstream's failure means for the session, in words the client and the instance's
 * log show: whether the upstream session is over (refused by the network policy, the server
 * refused the credentials, the session expired, a reply over the limit, the server unreachable)
 * or only one request failed.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MessageTooLarge } from './body-limit';
import { OAuthFlowError } from './oauth/oauth-errors';
import { ConnectionRefused } from './guarded-fetch';

export interface UpstreamFailure {
  /** One line for the log and the client, prefixed `[remote]`. */
  text: string;
  /** True when the upstream session cannot go on (a new one is started on the next request). */
  fatal: boolean;
  /** The limit passed, when a reply was over it. */
  tooLarge?: number;
}

/** The errors in `error` and its causes, outermost first (bounded). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && out.length < 6; e = (e as { cause?: unknown }).cause) {
    out.push(e);
    if (!(e instanceof Error)) break;
  }
  return out;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500);

/** Classifies one failure of the upstream transport. */
export function describeUpstreamError(error: unknown): UpstreamFailure {
  const errors = chain(error);
  const find = <T>(type: abstract new (...a: never[]) => T): T | undefined =>
    errors.find((e): e is T => e instanceof type);
  const tooLarge = find(MessageTooLarge);
  if (tooLarge)
    return { text: `[remote] ${tooLarge.message}`, fatal: true, tooLarge: tooLarge.max };
  const refused = find(ConnectionRefused);
  if (refused)
    return { text: `[remote] refused by the network policy: ${refused.message}`, fatal: true };
  const oauth = find(OAuthFlowError);
  if (oauth) return { text: `[remote] ${oauth.message} (${oauth.remedy})`, fatal: true };
  if (find(UnauthorizedError))
    return {
      text: `[remote] the server asks to sign in (${messageOf(find(UnauthorizedError))})`,
      fatal: true,
    };
  const http = find(StreamableHTTPError) ?? find(SseError);
  const code = http?.code;
  if (code === 401 || code === 403)
    return {
      text: `[remote] the server refused Warden's credentials (HTTP ${code}): check the server's --header values or sign in again; ${messageOf(http)}`,
      fatal: true,
    };
  if (code === 404)
    return {
      text: `[remote] the server ended the session (HTTP 404); a new one starts`,
      fatal: true,
    };
  if (http) return { text: `[remote] ${messageOf(http)}`, fatal: http instanceof SseError };
  if (errors.some((e) => e instanceof TypeError && /fetch failed/.test(messageOf(e)))) {
    const cause = errors.at(-1);
    return { text: `[remote] cannot reach the server: ${messageOf(cause)}`, fatal: true };
  }
  return { text: `[remote] ${messageOf(error)}`, fatal: false };
}
