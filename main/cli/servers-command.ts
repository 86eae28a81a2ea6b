/** `warden servers list|add|remove|show`: manage servers and their policies from the shell. */
import { parseArgs } from 'node:util';
import type { ServerView } from '../../app/contract/servers';
import { defaultPolicy } from '../../app/policy/defaults';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import type { Core } from '../core/core';
import { type CliIo, UsageError, reportUsage, splitAtDashDash } from './cli-io';
import { checkNetworkFlags } from '../egress/egress-flags';
import { POLICY_FLAGS_HELP, parsePolicyFlags } from './policy-flags';

export const SERVERS_HELP = `Usage:
  warden servers list [--json]
  warden servers add NAME [policy flags] -- COMMAND [ARGS...]
  warden servers show NAME [--json]
  warden servers confirm NAME       confirm a server's command so that it may start
  warden servers remove NAME

A server added here is confirmed: you typed its command. One added or imported elsewhere starts
only once its full command has been confirmed.

${POLICY_FLAGS_HELP}
`;

function badge(view: ServerView): string {
  switch (view.isolation.kind) {
    case 'sandboxed':
      return `sandboxed (${view.isolation.backend})`;
    case 'off':
      return 'NOT SANDBOXED';
    case 'unavailable':
      return `cannot sandbox here: ${showUntrusted(view.isolation.reason)}`;
  }
}

function describe(view: ServerView): string {
  const { server } = view;
  const p = server.policy;
  const roots = p.filesystem.roots.map(
    (r) => `${showUntrusted(r.path)} (${r.access === 'write' ? 'rw' : 'ro'})`,
  );
  const limits = Object.entries(p.limits).filter(([k]) => k !== 'bestEffort');
  return [
    `name:       ${showUntrusted(server.name)}`,
    `command:    ${showUntrusted(view.commandLine)}`,
    `isolation:  ${badge(view)}`,
    `revision:   ${server.revision}`,
    `roots:      ${roots.length ? roots.join(', ') : '(none)'}`,
    `network:    ${p.network.mode}${p.network.allow.length ? ` allow ${showUntrusted(p.network.allow.join(', '))}` : ''}${p.network.deny.length ? ` deny ${showUntrusted(p.network.deny.join(', '))}` : ''}`,
    `env:        ${showUntrusted([...p.env.pass, ...Object.keys(p.env.set).map((k) => `${k}=…`)].join(', ')) || '(base only)'}`,
    `limits:     ${limits.length ? limits.map(([k, v]) => `${k}=${String(v)}`).join(', ') : '(none)'}`,
    ...(server.acknowledged
      ? []
      : ['warning:    new server: check the full command above before starting it']),
  ].join('\n');
}

async function call<T>(core: Core, op: string, input: unknown, io: CliIo): Promise<T | undefined> {
  const reply = await core.handle(op, input);
  if (reply.ok) return reply.value as T;
  io.stderr(
    `warden: ${showUntrusted(reply.error.message)}${reply.error.remedy ? ` (${showUntrusted(reply.error.remedy)})` : ''}\n`,
  );
  return undefined;
}

function onlyJsonFlag(args: string[]): { json: boolean; positionals: string[] } {
  const parsed = parseArgs({
    args,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  return { json: parsed.values.json === true, positionals: parsed.positionals };
}

/** Runs `warden servers …` against `core`; returns the exit status. */
export async function runServersCommand(args: string[], io: CliIo, core: Core): Promise<number> {
  const [sub, ...rest] = args;
  try {
    switch (sub) {
      case 'list': {
        const { json } = onlyJsonFlag(rest);
        const views = await call<ServerView[]>(core, 'servers.list', {}, io);
        if (!views) return 1;
        if (json) io.stdout(`${terminalJson(views)}\n`);
        else if (views.length === 0)
          io.stdout('No servers yet. Add one with: warden servers add NAME -- COMMAND ARGS\n');
        else
          for (const v of views)
            io.stdout(
              `${showUntrusted(v.server.name)}\t${badge(v)}\t${showUntrusted(v.commandLine)}\n`,
            );
        return 0;
      }
      case 'add': {
        const { flags, command } = splitAtDashDash(rest);
        const { policy, rest: others } = parsePolicyFlags(flags, defaultPolicy());
        checkNetworkFlags(policy.network);
        const unknown = others.find((a) => a.startsWith('-'));
        if (unknown) throw new UsageError(`${unknown}: unknown flag (see warden servers --help)`);
        if (others.length !== 1) throw new UsageError('add: expected exactly one NAME before --');
        if (!command || command.length === 0)
          throw new UsageError('add: expected -- COMMAND [ARGS...] after the flags');
        const [cmd, ...cmdArgs] = command as [string, ...string[]];
        const added = await call<ServerView>(
          core,
          'servers.add',
          { name: others[0], launch: { command: cmd, args: cmdArgs }, policy },
          io,
        );
        // The user typed the whole command: that is the confirmation the UI otherwise asks for.
        const view =
          added &&
          (await call<ServerView>(core, 'servers.acknowledge', { name: added.server.name }, io));
        if (!view) return 1;
        io.stdout(
          `Added "${showUntrusted(view.server.name)}" (revision ${view.server.revision}).\n${describe(view)}\n`,
        );
        return 0;
      }
      case 'show': {
        const { json, positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 1) throw new UsageError('show: expected exactly one NAME');
        const view = await call<ServerView>(core, 'servers.get', { name: positionals[0] }, io);
        if (!view) return 1;
        io.stdout(json ? `${terminalJson(view)}\n` : `${describe(view)}\n`);
        return 0;
      }
      case 'confirm': {
        const { positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 1) throw new UsageError('confirm: expected exactly one NAME');
        const view = await call<ServerView>(
          core,
          'servers.acknowledge',
          { name: positionals[0] },
          io,
        );
        if (!view) return 1;
        io.stdout(
          `Confirmed "${showUntrusted(view.server.name)}": ${showUntrusted(view.commandLine)}\n`,
        );
        return 0;
      }
      case 'remove': {
        const { positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 1) throw new UsageError('remove: expected exactly one NAME');
        const done = await call(core, 'servers.remove', { name: positionals[0] }, io);
        if (!done) return 1;
        io.stdout(`Removed "${showUntrusted(positionals[0]!)}".\n`);
        return 0;
      }
      case undefined:
      case '--help':
      case '-h':
        io.stdout(SERVERS_HELP);
        return sub === undefined ? 2 : 0;
      default:
        throw new UsageError(
          `servers: unknown subcommand "${sub}" (expected list, add, show, confirm or remove)`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, error);
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      return reportUsage(io, new UsageError((error as Error).message.split('\n')[0]!));
    throw error;
  }
}
