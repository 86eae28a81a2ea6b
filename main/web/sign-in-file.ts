/**
 * The file `warden serve` opens instead of a URL (as Jupyter does): a page that sends the browser
 * to a one-time sign-in URL, in a 0700 folder of Warden's home, readable by its owner only (0600).
 * A browser keeps what it was started with in its argv, which every local user can read: this
 * way that is a path nobody else can open, and the code inside is spent within seconds.
 *
 * It goes to the per-run address (`<random>.localhost`) only in a browser that resolves such names
 * to this computer itself (Chromium-based ones and Firefox, told by their user agent, which only
 * the user can change): another browser may ask a DNS server, which would learn the name and
 * could answer the probe rightly and the navigation after it with a server of its own. Such a
 * browser goes to 127.0.0.1 at once. In the others, the script first asks the per-run name's
 * `/reachable` a one-time question only Warden can answer (reachable-probe.ts), and goes there
 * only with that answer; without it the page says so and offers 127.0.0.1, which belongs to the
 * port (a service worker left there sees what happens there), instead of going there itself.
 * Warden's "no such question" (404) means the file was used already or is too old: the page says
 * so and offers nothing, since its code is spent too (anyone else's 404 only shows that text).
 * Without scripts the panel cannot run anyway; the file then goes to the per-run address.
 */
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SignInLinks } from '../core/open-panel';
import { SIGN_IN_CODE_TTL_MS } from './sign-in';

/** How long the file waits for the per-run name before it says it cannot reach it. */
export const PROBE_TIMEOUT_MS = 3000;

/**
 * User agents of browsers that resolve `*.localhost` to this computer themselves: Chromium's
 * (Chrome, Edge, Brave, Opera …) and Firefox's. Their iOS builds (`CriOS`, `FxiOS`) use the
 * system's resolver and do not match.
 */
export const RESOLVES_LOCALHOST = /(?:Chrome|Chromium|Firefox)\//;

/** The page of the sign-in file for `links`; pure, so its script can be tested as it is. */
export function signInFileHtml(links: SignInLinks): string {
  const url = JSON.stringify(links.url);
  const fallback = JSON.stringify(links.fallbackUrl);
  const probe = JSON.stringify(links.probeUrl);
  const answer = JSON.stringify(links.probeAnswer);
  const script =
    `(() => { if (!${RESOLVES_LOCALHOST}.test(navigator.userAgent)) ` +
    `{ location.replace(${fallback}); return; } let done = false; ` +
    `const show = (id) => { if (!done) { done = true; ` +
    `document.getElementById('opening').hidden = true; ` +
    `document.getElementById(id).hidden = false; } }; ` +
    `const unreached = () => show('unreached'); const spent = () => show('spent'); ` +
    `setTimeout(unreached, ${PROBE_TIMEOUT_MS}); ` +
    `fetch(${probe}, { cache: 'no-store', credentials: 'omit' })` +
    `.then((r) => (r.status === 404 ? (spent(), '') : r.text()))` +
    `.then((t) => { if (t.trim() === ${answer} && !done) { done = true; ` +
    `location.replace(${url}); } else unreached(); }, unreached); })();`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<noscript><meta http-equiv="refresh" content="0;url=${links.url}"></noscript>` +
    '<meta name="color-scheme" content="light dark"><title>Opening Warden</title>' +
    '<style>body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; ' +
    'padding: 0 1rem; } [role="alert"] { border-left: 4px solid #b7791f; padding-left: 1rem; }' +
    '</style></head><body>' +
    '<p id="opening">Opening Warden…</p>' +
    '<div id="unreached" role="alert" hidden><p>Warden did not answer at the address made for ' +
    'this run of it. Run <code>warden open</code> to try again, or open ' +
    `<a href=${fallback}>the fallback address</a>: it belongs to the port rather than to this ` +
    'run, so a program another user ran on this port while Warden was stopped could see what you ' +
    'do there.</p></div>' +
    '<div id="spent" role="alert" hidden><p>This sign-in file was used already, or is more ' +
    `than ${SIGN_IN_CODE_TTL_MS / 1000} seconds old: each one signs in once. Run ` +
    '<code>warden open</code> to sign in again.</p></div>' +
    `<script>${script}</script></body></html>\n`
  );
}

/** Writes the sign-in file for `links` under `wardenHome/run`; returns its path. */
export async function writeSignInFile(
  wardenHome: string,
  port: number,
  links: SignInLinks,
): Promise<string> {
  const dir = join(wardenHome, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = join(dir, `open-${port}.html`);
  await rm(path, { force: true });
  // Created exclusively with mode 0600, so no other user can have it open already.
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(signInFileHtml(links));
  } finally {
    await handle.close();
  }
  return path;
}

/** The `file://` URL of a path, as an opener takes it. */
export function fileUrl(path: string): string {
  return pathToFileURL(path).href;
}
