/**
 * `warden open`: shows the control panel of the Warden running for this state folder. The app
 * brings its window up; `warden serve` (started at login, say) gives a one-time sign-in URL, which
 * goes to the browser inside a sign-in file only this user can read, never in an argv.
 */
import { showUntrusted } from '../../app/text/untrusted-text';
import { resolveWardenHome } from '../config/warden-home';
import { runningCore } from '../core/control-channel';
import { OPEN_PANEL_OP, panelOpenedSchema } from '../core/open-panel';
import { openBrowser } from '../web/open-browser';
import { fileUrl, writeSignInFile } from '../web/sign-in-file';
import type { CliIo } from './cli-io';

export interface OpenDeps {
  wardenHome: string;
  openBrowser: (url: string) => void;
}

export async function runOpenCommand(
  io: CliIo,
  deps: OpenDeps = { wardenHome: resolveWardenHome(), openBrowser },
): Promise<number> {
  let core;
  try {
    core = await runningCore(deps.wardenHome);
  } catch (error) {
    io.stderr(`warden: open: ${(error as Error).message}\n`);
    return 1;
  }
  if (!core) {
    io.stderr(
      `warden: open: no Warden is running for ${deps.wardenHome}: start the app or "warden serve" (and "warden autostart on" starts it at login)\n`,
    );
    return 1;
  }
  const reply = await core.handle(OPEN_PANEL_OP, {});
  if (!reply.ok) {
    io.stderr(
      `warden: open: the running Warden did not open its panel: ${showUntrusted(reply.error.message)}\n`,
    );
    return 1;
  }
  const opened = panelOpenedSchema.safeParse(reply.value);
  if (!opened.success) {
    io.stderr('warden: open: the running Warden answered something unexpected\n');
    return 1;
  }
  if (opened.data.kind === 'window') {
    io.stdout('The Warden app shows its window.\n');
    return 0;
  }
  const { port, signInUrl } = opened.data;
  const file = await writeSignInFile(deps.wardenHome, port, signInUrl);
  deps.openBrowser(fileUrl(file));
  io.stdout(
    `Opening the control panel at http://127.0.0.1:${port}/ in your browser.\n` +
      `  If no browser opens, open ${file} in one (only you can read it; its sign-in works once, for a few seconds).\n`,
  );
  return 0;
}
