/**
 * The file `warden serve` opens instead of a URL (as Jupyter does): a page that sends the browser
 * to a one-time sign-in URL, in a 0700 folder of Warden's home, readable by its owner only (0600).
 * A browser keeps what it was started with in its argv, which every local user can read: this
 * way that is a path nobody else can open, and the code inside is spent within seconds.
 *
 * It goes to the per-run address (`<random>.localhost`) when the browser reaches Warden there,
 * and to 127.0.0.1 otherwise: its script first asks the per-run name's `/reachable` a one-time
 * question only Warden can answer (reachable-probe.ts; Chromium and Firefox resolve
 * `*.localhost` themselves, Safari and others may ask a DNS server). Without scripts the panel
 * cannot run anyway; the file then goes to the per-run address and links to both.
 */
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SignInLinks } from '../core/open-panel';

/** How long the file waits for the per-run name before it falls back to 127.0.0.1. */
export const PROBE_TIMEOUT_MS = 3000;

/** The page of the sign-in file for `links`; pure, so its script can be tested as it is. */
export function signInFileHtml(links: SignInLinks): string {
  const url = JSON.stringify(links.url);
  const fallback = JSON.stringify(links.fallbackUrl);
  const probe = JSON.stringify(links.probeUrl);
  const answer = JSON.stringify(links.probeAnswer);
  const script =
    `(() => { let gone = false; const go = (to) => { if (!gone) { gone = true; ` +
    `location.replace(to); } }; setTimeout(() => go(${fallback}), ${PROBE_TIMEOUT_MS}); ` +
    `fetch(${probe}, { cache: 'no-store', credentials: 'omit' })` +
    `.then((r) => r.text()).then((t) => go(t.trim() === ${answer} ? ${url} : ${fallback}), ` +
    `() => go(${fallback})); })();`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<noscript><meta http-equiv="refresh" content="0;url=${links.url}"></noscript>` +
    '<title>Opening Warden</title></head><body>' +
    `<p>Opening Warden. If nothing happens, <a href=${url}>open the control panel</a>.</p>` +
    '<p>A browser that cannot open that address can use ' +
    `<a href=${fallback}>the fallback address</a>, which belongs to the port rather than to ` +
    'this run of Warden (the panel there says what that means).</p>' +
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
