/**
 * A browser's session with `warden serve`, readable by Warden's own origin only. The one-time
 * code `/login` forwards in the fragment (`/#code=`) leaves the address bar at once and is traded
 * by a same-origin POST to `/session` for a session secret, kept in localStorage: storage is
 * scoped to scheme, host and port, so a page on another port of 127.0.0.1 cannot read it, where
 * a cookie would be sent to every port; on the per-run `*.localhost` name, neither can a service
 * worker left on this port earlier. The WebSocket is opened with the secret as a subprotocol.
 * Signing out ends the session on the server (`DELETE /session`) and forgets it here.
 */
import { SESSION_HEADER, type SessionEnd, sessionAnswerSchema } from '../../../app/contract/wire';
import { codeFromLocation } from './page-token';

/** The localStorage key of the session secret (one per origin: per run, or per port). */
export const SESSION_STORAGE_KEY = 'warden-session';

/** What the session needs of the page (a Window fits). */
export type SessionPage = Pick<Window, 'location' | 'history' | 'localStorage' | 'fetch'>;

/**
 * The session secret to open the WebSocket with, asked before each connection; undefined when
 * the page has none and is on its way to `/login`. A code in the fragment is traded once; a
 * stored secret the server no longer knows (expired, or another `warden serve`) is forgotten.
 */
export function browserSession(page: SessionPage): () => Promise<string | undefined> {
  return async () => {
    if (/[#&]code=/.test(page.location.hash)) {
      const code = codeFromLocation(page.location);
      // Out of the address bar and history before anything else can read it.
      page.history.replaceState(null, '', page.location.pathname + page.location.search);
      const secret = code === undefined ? undefined : await exchange(page, code);
      if (secret === undefined) return signIn(page);
      page.localStorage.setItem(SESSION_STORAGE_KEY, secret);
      return secret;
    }
    const stored = page.localStorage.getItem(SESSION_STORAGE_KEY);
    if (stored === null) return signIn(page);
    if ((await check(page, stored)) === 'refused') {
      page.localStorage.removeItem(SESSION_STORAGE_KEY);
      return signIn(page);
    }
    return stored;
  };
}

/** Trades a one-time code for a session secret; undefined when refused or unreachable. */
async function exchange(page: SessionPage, code: string): Promise<string | undefined> {
  try {
    const reply = await page.fetch('/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
      credentials: 'omit',
      cache: 'no-store',
    });
    if (!reply.ok) return undefined;
    const answer = sessionAnswerSchema.safeParse(await reply.json());
    return answer.success ? answer.data.session : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks whether the server still knows `secret`. The custom header keeps other origins out: they
 * could send it only after a preflight, which the server refuses. Unreachable is not refused:
 * the WebSocket then retries, and asks again.
 */
async function check(page: SessionPage, secret: string): Promise<'live' | 'refused' | 'unknown'> {
  try {
    const reply = await page.fetch('/session', {
      headers: { [SESSION_HEADER]: secret },
      credentials: 'omit',
      cache: 'no-store',
    });
    return reply.status === 204 ? 'live' : reply.status === 401 ? 'refused' : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Signs this browser out: the server ends the session (closing its sockets in every tab), the
 * page forgets it and shows the sign-in page. Forgotten even when the server cannot be reached,
 * since the user may be leaving this browser; the sign-in page then says the end is unconfirmed.
 */
export async function signOutOfBrowser(page: SessionPage): Promise<void> {
  const secret = page.localStorage.getItem(SESSION_STORAGE_KEY);
  const ended = secret === null || (await revoke(page, secret));
  forgetSession(page, ended ? 'signed-out' : 'unconfirmed');
}

/** Forgets the stored secret and goes to the sign-in page, which says `why`. */
export function forgetSession(page: SessionPage, why: SessionEnd): void {
  page.localStorage.removeItem(SESSION_STORAGE_KEY);
  page.location.replace(`/login?ended=${why}`);
}

/** Ends `secret` on the server; true once it is no longer live there (ended now or before). */
async function revoke(page: SessionPage, secret: string): Promise<boolean> {
  try {
    const reply = await page.fetch('/session', {
      method: 'DELETE',
      headers: { [SESSION_HEADER]: secret },
      credentials: 'omit',
      cache: 'no-store',
    });
    return reply.status === 204 || reply.status === 401;
  } catch {
    return false;
  }
}

function signIn(page: SessionPage): undefined {
  page.location.replace('/login');
  return undefined;
}
