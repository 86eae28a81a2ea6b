/**
 * `warden import CLIENT [--path FILE] [--yes] [--json]` and
 * `warden clients list|connect|disconnect`: bring servers in from AI clients, and point the
 * clients back at Warden. Import always shows the full preview; nothing is imported without
 * --yes, and nothing is started by either command. With a core running (the app, `warden serve`)
 * both go through it, as `servers` does: it keeps the secrets an import brings in its own store
 * (the OS keychain for the app), writes the config and the audit chain, and knows its gateway.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { clientIdSchema, clientIds } from '../../app/clients/client-formats';
import type { Transport } from '../../app/clients/warden-entry';
import type { ContractError } from '../../app/contract/contract-error';
import type { Result } from '../../app/result';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, UsageError, confirm, reportUsage } from '../cli/cli-io';
import type { ContractCaller } from '../core/control-channel';
import type { Core } from '../core/core';
import { headlessSecretStore, headlessSecretsWarning } from '../secrets/headless-secret-store';
import { currentLocationContext } from './client-locations';
import { type ClientsContext, clientsContext } from './clients-context';
import { describeClients, describeConnect, describePreview } from './clients-cli-text';
import { type ClientsHandlers, createClientsHandlers } from './clients-handlers';

export const IMPORT_HELP = `Usage: warden import CLIENT [--path FILE] [--yes] [--json]

Shows every server in CLIENT's config with its full command, the policy Warden proposes and
warnings; with --yes, adds the ready ones to Warden (sandboxed). Nothing is started.
CLIENT: ${clientIds.join(', ')}
`;

export const CLIENTS_HELP = `Usage:
  warden clients list [--json]
  warden clients connect CLIENT [--path FILE] [--transport stdio|http] [--gateway-port N] [--yes | --dry-run]
  warden clients disconnect CLIENT [--path FILE]
  warden clients revoke CLIENT [--path FILE]

connect shows the change and asks before it rewrites CLIENT's imported entries to go through
Warden (a backup of the file is kept; --yes writes without asking, --dry-run only shows it);
over HTTP only while Warden's own gateway holds the port, with a token for that client alone.
disconnect gives CLIENT its own entries back; revoke cuts off CLIENT's gateway token.
`;

function clientArg(value: string | undefined): (typeof clientIds)[number] {
  const parsed = clientIdSchema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(`expected a CLIENT, one of ${clientIds.join(', ')}; got "${value ?? ''}"`);
  return parsed.data;
}

function report<T>(io: CliIo, result: Result<T, ContractError>): T | undefined {
  if (result.ok) return result.value;
  io.stderr(
    `warden: ${showUntrusted(result.error.message)}${result.error.remedy ? ` (${showUntrusted(result.error.remedy)})` : ''}\n`,
  );
  return undefined;
}

/** The context the commands run with; `overrides` lets tests and the app replace parts. */
function contextFor(core: Core, overrides: Partial<ClientsContext>): ClientsContext {
  return clientsContext({
    wardenHome: core.wardenHome,
    config: core.config,
    locations: currentLocationContext(),
    secrets: headlessSecretStore(core.wardenHome),
    ...overrides,
  });
}

type Op = keyof ClientsHandlers;
type Call = <N extends Op>(
  op: N,
  input: Parameters<ClientsHandlers[N]>[0],
) => ReturnType<ClientsHandlers[N]>;

/** Where the commands' operations run: a core of this process, or the running one. */
interface Clients {
  call: Call;
  /** The context of a core of this process (none for the running core). */
  local?: ClientsContext;
}

/**
 * The operations over `core`: the `clients.*` handlers over a context of this process's core
 * (with `overrides`, and `gatewayPort` when given), or the running core's own over its channel.
 */
function clientsOf(
  core: Core | ContractCaller,
  overrides: Partial<ClientsContext>,
  gatewayPort?: number,
): Clients {
  if ('config' in core) {
    const local = contextFor(core, { ...(gatewayPort ? { gatewayPort } : {}), ...overrides });
    const handlers = createClientsHandlers(local);
    const call = ((op: Op, input: never) => handlers[op](input)) as Call;
    return { call, local };
  }
  // The running core has its own current folder: the paths are this command's.
  const call = ((op: Op, input: { path?: string }) =>
    core.handle(op, {
      ...input,
      ...(input.path === undefined ? {} : { path: resolve(input.path) }),
      workspace: process.cwd(),
    })) as Call;
  return { call };
}

/**
 * Whether `--gateway-port` names the port the running core's gateway holds: with a core running,
 * clients are pointed at its gateway, not at a port given here.
 */
async function samePortAsRunning(core: ContractCaller, port: number, io: CliIo): Promise<boolean> {
  const reply = await core.handle('gateway.status', {});
  const status = reply.ok ? (reply.value as { kind?: string; port?: number }) : undefined;
  if (status?.kind === 'running' && status.port === port) return true;
  io.stderr(
    `warden: clients: --gateway-port ${port}: a Warden core is running and clients are pointed at its gateway, ${status?.kind === 'running' ? `which is on port ${status.port}` : 'which is not running'} (leave out --gateway-port, or start Warden's gateway on that port)\n`,
  );
  return false;
}

const usage = (io: CliIo, error: unknown): number => {
  if (error instanceof UsageError) return reportUsage(io, error);
  if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
    return reportUsage(io, new UsageError((error as Error).message.split('\n')[0]!));
  throw error;
};

/** Runs `warden import …`; returns the exit status. */
export async function runImportCommand(
  args: string[],
  io: CliIo,
  core: Core | ContractCaller,
  overrides: Partial<ClientsContext> = {},
): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: {
        path: { type: 'string' },
        yes: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
    if (values.help) {
      io.stdout(IMPORT_HELP);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('import: expected exactly one CLIENT');
    const client = clientArg(positionals[0]);
    const { call, local } = clientsOf(core, overrides);
    const input = { client, ...(values.path ? { path: values.path } : {}) };
    const previews = report(io, await call('clients.importPreview', input));
    if (!previews) return 1;
    if (!values.json) io.stdout(previews.map(describePreview).join('\n'));
    const ready = previews.flatMap((p) => p.candidates).filter((c) => c.status === 'ready');
    if (!values.yes) {
      if (values.json) io.stdout(`${terminalJson(previews)}\n`);
      else
        io.stdout(
          ready.length > 0
            ? `\nNothing was imported. Check the commands and policies above, then run again with --yes to import ${ready.length} server(s).\n`
            : '\nNothing to import.\n',
        );
      return 0;
    }
    const results = report(io, await call('clients.import', input));
    if (!results) return 1;
    if (values.json) {
      io.stdout(`${terminalJson({ previews, results })}\n`);
      return 0;
    }
    for (const r of results) {
      for (const i of r.imported) {
        const entry = previews.flatMap((p) => p.candidates).find((c) => c.id === i.id);
        io.stdout(
          `Imported "${showUntrusted(entry?.entryName ?? i.id)}" as "${showUntrusted(i.name)}" (sandboxed, not started).\n`,
        );
      }
      for (const skip of r.skipped) {
        const entry = previews.flatMap((p) => p.candidates).find((c) => c.id === skip.id);
        if (entry?.status === 'ready')
          io.stdout(
            `Not imported "${showUntrusted(entry.entryName)}": ${showUntrusted(skip.reason)}\n`,
          );
      }
      for (const n of r.notes) io.stdout(`note: ${showUntrusted(n)}\n`);
    }
    const secrets = previews.some((p) =>
      p.candidates.some((c) => c.env.some((e) => e.kind === 'secret')),
    );
    const store = local ? local.secrets?.description : previews[0]?.secretStore;
    if (secrets && store) {
      // A store this process chose itself is the unencrypted file; a running core's names itself.
      const headless = local?.secrets !== undefined && local.secrets !== overrides.secrets;
      const kept = `Secrets are kept in ${showUntrusted(store)}.`;
      io.stdout(`${headless ? `${kept} ${headlessSecretsWarning}` : kept}\n`);
    }
    io.stdout(
      `Point ${client} at Warden with: warden clients connect ${client}${values.path ? ` --path ${values.path}` : ''}\n`,
    );
    return 0;
  } catch (error) {
    return usage(io, error);
  }
}

/** Runs `warden clients …`; returns the exit status. */
export async function runClientsCommand(
  args: string[],
  io: CliIo,
  core: Core | ContractCaller,
  overrides: Partial<ClientsContext> = {},
): Promise<number> {
  const [sub, ...rest] = args;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: {
        path: { type: 'string' },
        transport: { type: 'string' },
        'gateway-port': { type: 'string' },
        'dry-run': { type: 'boolean' },
        yes: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
    });
    const gp = values['gateway-port'];
    if (gp !== undefined && (!/^\d{1,5}$/.test(gp) || Number(gp) < 1 || Number(gp) > 65535))
      throw new UsageError(`--gateway-port: expected a port from 1 to 65535, got "${gp}"`);
    if (gp !== undefined && !('config' in core) && !(await samePortAsRunning(core, Number(gp), io)))
      return 1;
    const { call } = clientsOf(core, overrides, gp === undefined ? undefined : Number(gp));
    switch (sub) {
      case 'list': {
        const status = report(io, await call('clients.list', {}));
        if (!status) return 1;
        io.stdout(values.json ? `${terminalJson(status)}\n` : describeClients(status));
        return 0;
      }
      case 'revoke': {
        if (positionals.length !== 1) throw new UsageError('revoke: expected exactly one CLIENT');
        const client = clientArg(positionals[0]);
        const done = report(
          io,
          await call('clients.revokeToken', {
            client,
            ...(values.path ? { path: values.path } : {}),
          }),
        );
        if (!done) return 1;
        for (const d of done) io.stdout(`${showUntrusted(d.message)}\n`);
        return 0;
      }
      case 'connect':
      case 'disconnect': {
        if (positionals.length !== 1) throw new UsageError(`${sub}: expected exactly one CLIENT`);
        const client = clientArg(positionals[0]);
        const raw = values.transport;
        if (raw !== undefined && raw !== 'stdio' && raw !== 'http')
          throw new UsageError(`--transport: expected one of stdio, http, got "${raw}"`);
        const transport: Transport | undefined = raw;
        const input = {
          client,
          ...(values.path ? { path: values.path } : {}),
          ...(transport ? { transport } : {}),
        };
        if (sub === 'disconnect') {
          const done = report(io, await call('clients.disconnect', input));
          if (!done) return 1;
          for (const d of done)
            io.stdout(`${showUntrusted(d.file)}: ${showUntrusted(d.message)}\n`);
          return 0;
        }
        if (values['dry-run'] || !values.yes) {
          const previews = report(io, await call('clients.connectPreview', input));
          if (!previews) return 1;
          io.stdout(previews.map((p) => describeConnect(p)).join('\n'));
          if (values['dry-run']) return 0;
          if (!io.ask) {
            io.stderr(
              `warden: clients connect: nothing was written; check the change above, then run again with --yes to write it\n`,
            );
            return 1;
          }
          if (!(await confirm(io, `Write this change to ${client}'s config?`))) {
            io.stdout('Nothing was written.\n');
            return 1;
          }
        }
        const done = report(io, await call('clients.connect', input));
        if (!done) return 1;
        io.stdout(done.map((d) => describeConnect(d)).join('\n'));
        return 0;
      }
      case undefined:
      case '--help':
      case '-h':
        io.stdout(CLIENTS_HELP);
        return sub === undefined ? 2 : 0;
      default:
        throw new UsageError(
          `clients: unknown subcommand "${showUntrusted(sub)}" (expected list, connect, disconnect or revoke)`,
        );
    }
  } catch (error) {
    return usage(io, error);
  }
}
