/** The audit events of an instance's life, built from its state (pure builders). */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { InstanceState } from '../../app/contract/instances';
import type { Server } from '../../app/policy/policy-schema';
import { launchSummary } from './launch-summary';
import type { Launched, ProcessExit } from './launcher';

/** An instance moved from `previous` to `state`. */
export function lifecycleEvent(
  server: string,
  instance: string,
  state: InstanceState,
  previous: InstanceState['kind'],
): AuditEventInput {
  const reason = 'reason' in state ? state.reason : undefined;
  return {
    kind: 'instance.lifecycle',
    outcome: state.kind === 'failed' ? 'error' : 'info',
    server,
    instance,
    state: state.kind,
    previous,
    ...(reason ? { reason } : {}),
    ...(state.kind === 'running' && state.pid !== undefined ? { pid: state.pid } : {}),
    ...(state.kind === 'exited' ? { exitCode: state.code, signal: state.signal } : {}),
  };
}

/** Warden stopped the sandbox when its wall-time limit passed. */
export function wallTimeEvent(
  server: string,
  instance: string,
  wallSeconds: number | undefined,
): AuditEventInput {
  return {
    kind: 'limit.hit',
    outcome: 'refused',
    server,
    instance,
    limit: 'wallSeconds',
    ...(wallSeconds !== undefined ? { value: wallSeconds } : {}),
    detail: 'the sandbox was stopped when its wall-time limit passed',
  };
}

/** Paths of each list a launch's row names at most; it counts the rest. */
const MAX_KEPT_RECORDED = 32;
/** Characters of each such path recorded: a longer one keeps its end (where its name is). */
const MAX_KEPT_PATH = 256;

/** The first paths of `paths`, each cut to its end, for a launch's row. */
const recorded = (paths: readonly string[]) =>
  paths
    .slice(0, MAX_KEPT_RECORDED)
    .map((p) => (p.length > MAX_KEPT_PATH ? `…${p.slice(1 - MAX_KEPT_PATH)}` : p));

/** An instance of `server` was launched (its policy as launched, its command). */
export function launchEvent(server: Server, instance: string, launched: Launched): AuditEventInput {
  return {
    kind: 'sandbox.launch',
    outcome: 'info',
    server: server.name,
    instance,
    backend: launched.backend,
    revision: server.revision,
    policy: launchSummary(server, launched.limitsNotEnforced),
    // A remote server has no command: its URL is what runs.
    command: server.launch
      ? [server.launch.command, ...server.launch.args]
      : [server.remote?.url ?? ''],
    ...(launched.workspaceKept && {
      workspaceKept: recorded(launched.workspaceKept),
      workspaceKeptCount: launched.workspaceKept.length,
    }),
    ...(launched.closedFolders && {
      closedFolders: recorded(launched.closedFolders),
      closedFoldersCount: launched.closedFolders.length,
    }),
  };
}

/**
 * The workspace files a server created in its writable folders, each as a refusal with what was
 * done about it, or why the watch for them stopped it.
 */
export function workspaceFileEvents(
  server: string,
  instance: string,
  backend: string,
  exit: ProcessExit,
): AuditEventInput[] {
  const base = {
    kind: 'sandbox.violation',
    outcome: 'refused',
    server,
    instance,
    backend,
  } as const;
  const files = exit.workspaceFiles ?? [];
  if (files.length === 0 && exit.stoppedFor !== undefined)
    return [{ ...base, operation: 'workspace-watch', detail: `stopped: ${exit.stoppedFor}` }];
  return files.map((f) => ({
    ...base,
    operation: 'create-workspace-file',
    target: f.path,
    detail: f.movedTo
      ? `the server was stopped; moved aside to ${f.movedTo}`
      : `the server was stopped; could not be moved aside (${f.error ?? 'unknown error'})`,
  }));
}
