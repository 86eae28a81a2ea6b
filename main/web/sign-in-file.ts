/**
 * The file `warden serve` opens instead of a URL (as Jupyter does): an HTML redirect to a
 * one-time sign-in URL, in a 0700 folder of Warden's home, readable by its owner only (0600).
 * A browser keeps what it was started with in its argv, which every local user can read: this
 * way that is a path nobody else can open, and the code inside is spent within seconds.
 */
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes the redirect file for `signInUrl` under `wardenHome/run`; returns its path. */
export async function writeSignInFile(
  wardenHome: string,
  port: number,
  signInUrl: string,
): Promise<string> {
  const dir = join(wardenHome, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = join(dir, `open-${port}.html`);
  await rm(path, { force: true });
  const href = JSON.stringify(signInUrl);
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="refresh" content="0;url=${signInUrl}">` +
    '<title>Opening Warden</title></head><body>' +
    `<p>Opening Warden. If nothing happens, <a href=${href}>open the control panel</a>.</p>` +
    `<script>window.location.replace(${href});</script></body></html>\n`;
  // Created exclusively with mode 0600, so no other user can have it open already.
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(html);
  } finally {
    await handle.close();
  }
  return path;
}

/** The `file://` URL of a path, as an opener takes it. */
export function fileUrl(path: string): string {
  return pathToFileURL(path).href;
}
