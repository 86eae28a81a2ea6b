/**
 * `warden servers start|stop|restart|status`: act on the instances of the running core (the app
 * or `warden serve`) over its control channel. Instances live in that core; the CLI only asks.
 */
import type { InstanceView } from '../../app/contract/instances';
import type { ServerView } from '../../app/contract/servers';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import type { ContractCaller } from '../core/control-channel';
import { type CliIo, UsageError } from './cli-io';

/** The subcommands that need a running core. */
export const INSTANCE_SUBCOMMANDS = ['start', 'stop', 'restart', 'status'] as const;

type Call = <T>(op: string, input: unknown) => Promise<T | undefined>;

const live = (v: InstanceView) => v.state.kind === 'starting' || v.state.kind === 'running';

function stateText(v: InstanceView): string {
  const s = v.state;
  switch (s.kind) {
    case 'starting':
      return `starting (attempt ${s.attempt + 1})`;
    case 'running':
      return `running${s.pid ? ` (pid ${s.pid})` : ''} since ${s.since}`;
    case 'stopping':
      return 'stopping';
    case 'exited':
      return `exited (${s.signal ?? `status ${String(s.code)}`}): ${showUntrusted(s.reason)}`;
    case 'failed':
      return `FAILED: ${showUntrusted(s.reason)}${s.launchError ? ` (${showUntrusted(s.launchError.remedy)})` : ''}`;
  }
}

function describeInstance(v: InstanceView, current: number | undefined): string {
  const stale =
    current !== undefined && current > v.revision
      ? ` (policy is at revision ${current}: restart to apply)`
      : '';
  const lines = [
    `${showUntrusted(v.server)}\t${v.id}\t${stateText(v)}\trevision ${v.revision}${stale}\tclient ${showUntrusted(v.client)}`,
  ];
  if (v.state.kind === 'failed' || v.state.kind === 'exited')
    for (const line of v.stderrTail.slice(-5)) lines.push(`  stderr: ${showUntrusted(line)}`);
  return lines.join('\n');
}

/** Runs one of INSTANCE_SUBCOMMANDS; `positionals` and `json` are already parsed. */
export async function runInstanceCommand(
  sub: (typeof INSTANCE_SUBCOMMANDS)[number],
  positionals: string[],
  json: boolean,
  core: ContractCaller,
  call: Call,
  io: CliIo,
): Promise<number> {
  if (sub === 'status' ? positionals.length > 1 : positionals.length !== 1)
    throw new UsageError(`${sub}: expected ${sub === 'status' ? 'at most ' : 'exactly '}one NAME`);
  const name = positionals[0];
  const server = name ? await call<ServerView>('servers.get', { name }) : undefined;
  if (name && !server) return 1;
  const all = await call<InstanceView[]>('instances.list', {});
  if (!all) return 1;
  const mine = all.filter((v) => name === undefined || v.server === name);
  switch (sub) {
    case 'start': {
      const started = await call<InstanceView>('instances.start', { name });
      if (!started) return 1;
      io.stdout(`Started instance ${started.id} of "${name!}": ${stateText(started)}\n`);
      return started.state.kind === 'failed' ? 1 : 0;
    }
    case 'stop':
    case 'restart': {
      const targets = mine.filter(live);
      if (targets.length === 0) {
        io.stderr(
          `warden: "${name!}" has no running instance in the Warden at ${core.wardenHome}${sub === 'restart' ? ` (start one with: warden servers start ${name!})` : ''}\n`,
        );
        return 1;
      }
      for (const v of targets) {
        const op = sub === 'stop' ? 'instances.stop' : 'instances.restart';
        if (!(await call(op, { id: v.id }))) return 1;
        io.stdout(`${sub === 'stop' ? 'Stopped' : 'Restarted'} instance ${v.id} of "${name!}"\n`);
      }
      return 0;
    }
    case 'status': {
      if (json) {
        io.stdout(`${terminalJson(mine)}\n`);
        return 0;
      }
      if (mine.length === 0) {
        io.stdout(
          `${name ? `"${name}" has no instances` : 'No instances'} in the Warden at ${core.wardenHome}.\n`,
        );
        return 0;
      }
      const revisions = new Map<string, number>();
      if (server) revisions.set(server.server.name, server.server.revision);
      else {
        const views = await call<ServerView[]>('servers.list', {});
        for (const v of views ?? []) revisions.set(v.server.name, v.server.revision);
      }
      io.stdout(`${mine.map((v) => describeInstance(v, revisions.get(v.server))).join('\n')}\n`);
      return 0;
    }
  }
}
