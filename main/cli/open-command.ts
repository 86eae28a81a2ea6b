/**
 * `warden open`: shows the control panel of the Warden running for this state folder. The app
 * brings its window up; `warden serve` (started at login, say) gives a one-time sign-in URL at
 * both its addresses, which goes to the browser inside a sign-in file only this user can read,
 * never in an argv; the file picks the per-run address when the browser reaches it.
 */
import { showUntrusted } from '../../app/text/untrusted-text';
import { resolveWardenHome } from '../config/warden-home';
import { runningCore } from '../core/control-channel';
import { OPEN_PANEL_OP, type SignInLinks, panelOpenedSchema } from '../core/open-panel';
import { openBrowser } from '../web/open-browser';
import { fileUrl, writeSignInFile } from '../web/sign-in-file';
import type { CliIo } from './cli-io';

export interface OpenDeps {
  wardenHome: string;
  openBrowser: (url: string) => void;
}

/** What asking the running Warden for its control panel came to. */
export type PanelOpened =
  | { kind: 'window' }
  | { kind: 'browser'; port: number; file: string; links: SignInLinks }
  | { kind: 'none'; message: string };

/**
 * Asks the Warden running for `wardenHome` to show its control panel: the app brings its window
 * up; `warden serve` gives a one-time sign-in URL, opened through a sign-in file only this user
 * can read. Also used by the app when `warden serve` already holds the folder.
 */
export async function openRunningPanel(deps: OpenDeps): Promise<PanelOpened> {
  let core;
  try {
    core = await runningCore(deps.wardenHome);
  } catch (error) {
    return { kind: 'none', message: (error as Error).message };
  }
  if (!core)
    return {
      kind: 'none',
      message: `no Warden is running for ${deps.wardenHome}: start the app or "warden serve" (and "warden autostart on" starts it at login)`,
    };
  const reply = await core.handle(OPEN_PANEL_OP, {});
  if (!reply.ok)
    return {
      kind: 'none',
      message: `the running Warden did not open its panel: ${showUntrusted(reply.error.message)}`,
    };
  const opened = panelOpenedSchema.safeParse(reply.value);
  if (!opened.success)
    return { kind: 'none', message: 'the running Warden answered something unexpected' };
  if (opened.data.kind === 'window') return { kind: 'window' };
  const { port, signIn } = opened.data;
  // The same file as `warden serve` writes: the per-run address, or 127.0.0.1 as the fallback.
  const file = await writeSignInFile(deps.wardenHome, port, signIn);
  deps.openBrowser(fileUrl(file));
  return { kind: 'browser', port, file, links: signIn };
}

export async function runOpenCommand(
  io: CliIo,
  deps: OpenDeps = { wardenHome: resolveWardenHome(), openBrowser },
): Promise<number> {
  const opened = await openRunningPanel(deps);
  switch (opened.kind) {
    case 'none':
      io.stderr(`warden: open: ${opened.message}\n`);
      return 1;
    case 'window':
      io.stdout('The Warden app shows its window.\n');
      return 0;
    case 'browser':
      // Addresses without the code: it is for the browser only, through the file.
      io.stdout(
        `Opening the control panel at ${new URL(opened.links.url).origin}/ in your browser ` +
          `(or at ${new URL(opened.links.fallbackUrl).origin}/ if it cannot open that).\n` +
          `  If no browser opens, open ${opened.file} in one (only you can read it; its sign-in works once, for a few seconds).\n`,
      );
      return 0;
  }
}
