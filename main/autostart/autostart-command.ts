/**
 * `warden autostart on|off|show`: whether `warden serve` starts at login (the desktop app has the
 * same switch on its Host screen, for itself). A core that runs before any AI client starts lets
 * every `warden connect` join it instead of starting a core of its own.
 */
import { parseArgs } from 'node:util';
import type { AutostartState } from '../../app/contract/autostart';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, UsageError, portFlag } from '../cli/cli-io';
import { resolveWardenHome } from '../config/warden-home';
import { DEFAULT_GATEWAY_PORT } from '../gateway/front-doors';
import { serveAutostart } from './serve-login';

function describe(state: AutostartState): string {
  const where = showUntrusted(state.where);
  if (!state.available)
    return `Warden cannot start at login here: ${showUntrusted(state.reason ?? '')}\n`;
  if (state.enabled) return `Warden starts at login: ${state.target}.\n  Entry: ${where}\n`;
  if (state.other !== undefined)
    return (
      `The login entry starts something other than what "warden autostart on" writes here:\n` +
      `  ${showUntrusted(state.other)}\n  Entry: ${where}\n  "warden autostart on" replaces it.\n`
    );
  return `Warden does not start at login.\n  Entry: ${where}\n`;
}

/** Runs `warden autostart SUBCOMMAND …`; the caller handles --help. */
export async function runAutostartCommand(
  [sub, ...rest]: string[],
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { 'gateway-port': { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`autostart: unexpected argument '${positionals[0]}'`);
  const item = serveAutostart(
    resolveWardenHome(env),
    portFlag('autostart', '--gateway-port', values['gateway-port'], DEFAULT_GATEWAY_PORT),
    env,
  );
  if (sub === 'show') {
    const state = await item.state();
    io.stdout(values.json ? `${JSON.stringify(state)}\n` : describe(state));
    return 0;
  }
  if (sub !== 'on' && sub !== 'off')
    throw new UsageError(`autostart: expected on, off or show (see warden autostart --help)`);
  // Another program's entry of the same name is replaced: say which, as `show` would have.
  const before = sub === 'on' ? await item.state() : undefined;
  const state = await item.set(sub === 'on');
  if (!state.available) {
    io.stderr(`warden: autostart: ${showUntrusted(state.reason ?? 'not available here')}\n`);
    return 1;
  }
  if (sub === 'on') {
    io.stdout(
      `At login, Warden now starts ${state.target}; AI clients that start after it join it.\n  Entry: ${showUntrusted(state.where)}\n`,
    );
    if (before?.other !== undefined)
      io.stdout(`  It replaces the entry that started: ${showUntrusted(before.other)}\n`);
  } else io.stdout(`Warden no longer starts at login (${showUntrusted(state.where)} removed).\n`);
  return 0;
}
