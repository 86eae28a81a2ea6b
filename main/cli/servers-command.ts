/**
 * `warden servers list|add|edit|show|confirm|remove|start|stop|restart|status`: manage servers
 * and their policies from the shell, through the running core when there is one.
 */
import type { ContractError } from '../../app/contract/contract-error';
import type { EffectivePolicyView, PolicyView } from '../../app/contract/policy';
import type { ServerView } from '../../app/contract/servers';
import { defaultPolicy } from '../../app/policy/defaults';
import { checkScript } from '../../app/policy/script-check';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import type { ContractCaller } from '../core/control-channel';
import { type CliIo, EXIT_USAGE, UsageError, reportUsage, splitAtDashDash } from './cli-io';
import { checkNetworkFlags } from '../egress/egress-flags';
import { INSTANCE_SUBCOMMANDS, runInstanceCommand } from './instances-command';
import { runOAuthCommand } from './oauth-command';
import { applyPolicyEdit } from './policy-edit';
import { inheritedFromView, settleUnhides } from './unhide-check';
import { parsePolicyFlags, toolNameFlag } from './policy-flags';
import { appliesLive, changedPaths } from '../../app/policy/policy-diff';
import { parseRemoteFlags } from './remote-flags';
import type { RemoteInput } from '../../app/contract/servers';
import type { Policy } from '../../app/policy/policy-schema';
import { remotePolicy } from '../../app/policy/remote-policy';
import { noServerMessage } from './state-folder';
import { onlyJsonFlag, printServersList } from './servers-list-output';
import { describeServer } from './servers-describe';

function reportError(core: ContractCaller, io: CliIo, input: unknown, error: ContractError): void {
  const name = (input as { name?: unknown } | undefined)?.name;
  const message =
    error.kind === 'not-found' && typeof name === 'string' && /^no server named/.test(error.message)
      ? noServerMessage(name, core.wardenHome)
      : error.message;
  io.stderr(
    `warden: ${showUntrusted(message)}${error.remedy ? ` (${showUntrusted(error.remedy)})` : ''}\n`,
  );
}

/** The exit status for a refused call: 2 when a policy rule forbids it, as for a usage error. */
export const refusedStatus = (error: ContractError | undefined): number =>
  error?.kind === 'policy-forbidden' ? EXIT_USAGE : 1;

function caller(core: ContractCaller, io: CliIo) {
  const call = async <T>(op: string, input: unknown): Promise<T | undefined> => {
    const reply = await core.handle(op, input);
    if (reply.ok) return reply.value as T;
    reportError(core, io, input, reply.error);
    call.lastError = reply.error;
    return undefined;
  };
  call.lastError = undefined as ContractError | undefined;
  return call;
}

/** Runs `warden servers …` against `core` (in this process or the running one). */
export async function runServersCommand(
  args: string[],
  io: CliIo,
  core: ContractCaller,
): Promise<number> {
  const [sub, ...rest] = args;
  const call = caller(core, io);
  try {
    switch (sub) {
      case 'list': {
        const { json } = onlyJsonFlag(rest);
        const views = await call<ServerView[]>('servers.list', {});
        if (!views) return 1;
        printServersList(views, json, io, core.wardenHome);
        return 0;
      }
      case 'add': {
        const { flags, command } = splitAtDashDash(rest);
        const { remote, rest: policyArgs } = parseRemoteFlags(flags);
        const parsed = parsePolicyFlags(policyArgs, defaultPolicy());
        const others = parsed.rest;
        // A remote server's URL is its one needed destination, unless --net said otherwise.
        const netGiven = policyArgs.some((a) => a === '--net' || a.startsWith('--net='));
        const policy =
          remote && !netGiven ? remotePolicy(parsed.policy, remote.url) : parsed.policy;
        checkNetworkFlags(policy.network);
        const unknown = others.find((a) => a.startsWith('-'));
        if (unknown)
          throw new UsageError(`${unknown}: unknown flag (see warden servers add --help)`);
        if (others.length !== 1) throw new UsageError('add: expected exactly one NAME before --');
        if (remote && command)
          throw new UsageError('add: give either --url or -- COMMAND, not both');
        if (remote) return await addRemote(others[0]!, remote, policy, call, io);
        if (!command || command.length === 0)
          throw new UsageError('add: expected -- COMMAND [ARGS...] after the flags');
        const [cmd, ...cmdArgs] = command as [string, ...string[]];
        const checked = await withInheritedCheck(call, defaultPolicy(), policy);
        if (!checked) return refusedStatus(call.lastError);
        // The core refuses it too; here the working folder gives the exact path to declare.
        const script = checkScript({ command: cmd, args: cmdArgs }, checked, process.cwd());
        if (script) {
          io.stderr(`warden: servers add: ${script.message} (${script.remedy})\n`);
          return 1;
        }
        const added = await call<ServerView>('servers.add', {
          name: others[0],
          launch: { command: cmd, args: cmdArgs },
          policy: checked,
        });
        // The user typed the whole command: that is the confirmation the UI otherwise asks for.
        const view =
          added && (await call<ServerView>('servers.acknowledge', { name: added.server.name }));
        if (!view) return refusedStatus(call.lastError);
        io.stdout(
          `Added "${showUntrusted(view.server.name)}" (revision ${view.server.revision}).\n${describeServer(view)}\n`,
        );
        return 0;
      }
      case 'edit': {
        const [name, ...flags] = rest;
        if (name === undefined || name.startsWith('-'))
          throw new UsageError('edit: expected NAME, then the flags to change');
        return await editServer(name, flags, core, call, io);
      }
      case 'show': {
        const effective = rest.includes('--effective');
        const { json, positionals } = onlyJsonFlag(rest.filter((a) => a !== '--effective'));
        if (positionals.length !== 1) throw new UsageError('show: expected exactly one NAME');
        if (effective) return await showEffective(positionals[0]!, json, call, io);
        const view = await call<ServerView>('servers.get', { name: positionals[0] });
        if (!view) return 1;
        io.stdout(json ? `${terminalJson(view)}\n` : `${describeServer(view)}\n`);
        return 0;
      }
      case 'confirm': {
        const { positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 1) throw new UsageError('confirm: expected exactly one NAME');
        const view = await call<ServerView>('servers.acknowledge', { name: positionals[0] });
        if (!view) return 1;
        io.stdout(
          `Confirmed "${showUntrusted(view.server.name)}": ${showUntrusted(view.commandLine)}\n`,
        );
        return 0;
      }
      case 'remove': {
        const { positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 1) throw new UsageError('remove: expected exactly one NAME');
        const done = await call('servers.remove', { name: positionals[0] });
        if (!done) return 1;
        io.stdout(`Removed "${showUntrusted(positionals[0]!)}".\n`);
        return 0;
      }
      case 'forget-pin': {
        const { positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 2)
          throw new UsageError('forget-pin: expected NAME, then the TOOL whose pin to forget');
        const [name, tool] = positionals as [string, string];
        const done = await call<{ forgotten: boolean }>('tools.forget', {
          server: name,
          tool: toolNameFlag('forget-pin', tool),
        });
        if (!done) return refusedStatus(call.lastError);
        io.stdout(
          done.forgotten
            ? `Forgot the pinned definition of ${showUntrusted(tool)}: the next listing of "${showUntrusted(name)}" pins it anew.\n`
            : `"${showUntrusted(name)}" has no pinned definition of ${showUntrusted(tool)}.\n`,
        );
        return 0;
      }
      case 'sign-in':
      case 'sign-out': {
        const { positionals } = onlyJsonFlag(rest);
        if (positionals.length !== 1) throw new UsageError(`${sub}: expected exactly one NAME`);
        return await runOAuthCommand(sub, positionals[0]!, call, io);
      }
      case 'start':
      case 'stop':
      case 'restart':
      case 'status': {
        const { json, positionals } = onlyJsonFlag(rest);
        return await runInstanceCommand(sub, positionals, json, core, call, io);
      }
      default:
        throw new UsageError(
          `servers: unknown subcommand "${sub ?? ''}" (see warden servers --help)`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, error);
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      return reportUsage(io, new UsageError((error as Error).message.split('\n')[0]!));
    throw error;
  }
}

/** `servers add NAME --url URL`: the header values go to the secret store, never to the output. */
async function addRemote(
  name: string,
  remote: RemoteInput,
  policy: Policy,
  call: ReturnType<typeof caller>,
  io: CliIo,
): Promise<number> {
  const added = await call<ServerView>('servers.add', { name, remote, policy });
  // The user typed the URL: that is the confirmation the UI otherwise asks for.
  const view = added && (await call<ServerView>('servers.acknowledge', { name }));
  if (!view) return refusedStatus(call.lastError);
  io.stdout(
    `Added remote server "${showUntrusted(name)}" (revision ${view.server.revision}).\n${describeServer(view)}\n`,
  );
  return 0;
}

/** True for the subcommands that act on a running core's instances. */
export const needsRunningCore = (sub: string | undefined): boolean =>
  (INSTANCE_SUBCOMMANDS as readonly (string | undefined)[]).includes(sub);

/**
 * Applies the edit flags to the server's current policy and saves it with the revision it was
 * read at; when the policy moved on meanwhile (a tool pinned, a grant saved), the flags are
 * applied again to the newer one.
 */
async function editServer(
  name: string,
  flags: string[],
  core: ContractCaller,
  call: ReturnType<typeof caller>,
  io: CliIo,
): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const before = await call<ServerView>('servers.get', { name });
    if (!before) return 1;
    const edited = applyPolicyEdit(flags, before.server.policy);
    checkNetworkFlags(edited.policy.network);
    if (edited.rest.length > 0)
      throw new UsageError(
        `${edited.rest[0]!}: ${edited.rest[0]!.startsWith('-') ? 'unknown flag' : 'unexpected argument'} (see warden servers edit --help)`,
      );
    if (edited.flagCount === 0) throw new UsageError('edit: nothing to change; give a flag');
    const policy = await withInheritedCheck(call, before.server.policy, edited.policy);
    if (!policy) return refusedStatus(call.lastError);
    const input = { name, policy, expectedRevision: before.server.revision };
    const reply = await core.handle('servers.update', input);
    if (!reply.ok && reply.error.kind === 'conflict' && attempt < 3) continue;
    if (!reply.ok) {
      reportError(core, io, input, reply.error);
      return refusedStatus(reply.error);
    }
    const view = reply.value as ServerView;
    const from = before.server.revision;
    const shown = showUntrusted(name);
    // The tool policy is read at every message: running instances follow it as it changes.
    const live = appliesLive(changedPaths({ policy: before.server.policy }, { policy }));
    io.stdout(
      view.server.revision === from
        ? `"${shown}" already had this policy (revision ${from}).\n`
        : `Changed "${shown}" (revision ${from} → ${view.server.revision}); ${live ? 'running instances apply it at once' : 'running instances keep their revision until restarted'}.\n${describeServer(view)}\n`,
    );
    return 0;
  }
}

/**
 * `after` with its new `--unhide` paths checked against the hidden paths a server inherits (read
 * from the core only when there are any); undefined when the core could not be asked.
 */
async function withInheritedCheck(
  call: ReturnType<typeof caller>,
  before: Policy,
  after: Policy,
): Promise<Policy | undefined> {
  const had = before.guards?.unhide ?? [];
  if ((after.guards?.unhide ?? []).every((p) => had.includes(p))) return after;
  const view = await call<PolicyView>('policy.get', {});
  return view && settleUnhides(before, after, inheritedFromView(view));
}

/** `servers show NAME --effective`: each line with the layer it comes from. */
async function showEffective(
  name: string,
  json: boolean,
  call: ReturnType<typeof caller>,
  io: CliIo,
): Promise<number> {
  const view = await call<EffectivePolicyView>('servers.effective', { name });
  if (!view) return refusedStatus(call.lastError);
  if (json) {
    io.stdout(`${terminalJson(view)}\n`);
    return 0;
  }
  for (const line of view.lines) {
    const mark = line.exception ? '  EXCEPTION' : '';
    io.stdout(
      `${line.field.padEnd(18)} ${showUntrusted(line.value).padEnd(40)} [${line.layer}]${mark}\n`,
    );
  }
  return 0;
}
