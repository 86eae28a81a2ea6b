/**
 * The `/login` page: the form a browser opened by hand signs in with the printed token, and the
 * page a browser lands on once signed out, saying why. On the fallback origin (127.0.0.1) it says
 * what that address lacks. Plain HTML; its one inline style is allowed by its hash and follows
 * the system's light or dark theme, as the panel does.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SessionEnd } from '../../app/contract/wire';

/** Sessions kept at most; the oldest goes first (sign-in.ts). */
export const MAX_SESSIONS = 64;

/** What `/login?ended=` says; fixed text, so nothing from the URL is shown. */
const endedNotice: Record<SessionEnd, string> = {
  'signed-out': 'You signed out of Warden in this browser.',
  expired: `Your session ended: a sign-in lasts 12 hours, and Warden keeps only its ${MAX_SESSIONS} newest.`,
  unconfirmed:
    'This browser forgot its session, but Warden did not answer to end it: it ends when ' +
    '<code>warden serve</code> stops, or within 12 hours.',
};

// System colours only (Canvas, GrayText…), so both themes keep their contrast.
const STYLE =
  ':root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}' +
  'body{max-width:34rem;margin:12vh auto;padding:0 1.5rem}h1{font-size:1.5rem}' +
  '[role=status],[role=alert],[role=note]{padding:.5rem .75rem;border:1px solid GrayText;' +
  'border-left-width:4px;border-radius:4px}[role=alert]{border-color:#d1242f}' +
  '[role=note]{border-color:#bf8700}' +
  'label{display:block;margin-bottom:.75rem}input{display:block;width:100%;' +
  'box-sizing:border-box;margin-top:.25rem}input,button{font:inherit;padding:.3rem .5rem}' +
  'code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}';
const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;

/**
 * What the fallback origin says: the port's address, where a service worker another user left
 * there earlier could see this sign-in. It does not name the per-run address, which only the
 * user's terminal and sign-in file give out.
 */
export const FALLBACK_NOTICE =
  'This address is the fallback, for browsers that cannot open the address ' +
  '<code>warden serve</code> printed (a <code>.localhost</code> name new at each start). ' +
  'This one belongs to the port, not to this run: a program another user ran on this port ' +
  'while Warden was stopped could have left a service worker here that sees what you type. ' +
  'Use the printed address where your browser opens it.';

/**
 * Answers with the sign-in form posting to `origin`, the one the request came in on; `problem`
 * (fixed text) in an alert, `ended` in a notice, and the fallback notice on `fallbackOrigin`.
 */
export function sendForm(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  problem: string,
  opts: { origin: string; fallbackOrigin: string },
  ended?: SessionEnd,
): void {
  const body = Buffer.from(
    '<!doctype html><html lang="en"><meta charset="utf-8">' +
      '<meta name="viewport" content="width=device-width, initial-scale=1">' +
      `<title>Sign in to Warden</title><style>${STYLE}</style>` +
      '<h1>Sign in to Warden</h1>' +
      (opts.origin === opts.fallbackOrigin ? `<p role="note">${FALLBACK_NOTICE}</p>` : '') +
      (ended ? `<p role="status">${endedNotice[ended]}</p>` : '') +
      (problem ? `<p role="alert">${problem}</p>` : '') +
      '<p>Paste the session token that <code>warden serve</code> printed in its terminal, or ' +
      'run <code>warden open</code>, which opens the panel signed in.</p>' +
      `<form method="post" action="${opts.origin}/login">` +
      '<label>Session token <input name="token" type="password" autocomplete="off" required></label>' +
      '<button type="submit">Sign in</button></form></html>',
    'utf8',
  );
  res.writeHead(status, {
    ...headers,
    // The one page that posts a form, to itself only; its one style is allowed by its hash.
    'Content-Security-Policy':
      `default-src 'none'; style-src ${STYLE_SOURCE}; form-action 'self'; base-uri 'none'; ` +
      "frame-ancestors 'none'",
    // A form POST sends its Origin (sign-in.ts checks it) only under a policy that allows it.
    'Referrer-Policy': 'same-origin',
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(body.length),
  });
  res.end(body);
}
