/** Reads of the instances slice, and the server state the list shows. */
import type { FailureHint, InstanceView } from '../../../../app/contract/instances';
import type { Root } from '../root-store';

/**
 * A server's health as the servers list shows it. Ready: an instance runs and its server answered
 * `initialize`; Starting: one is launching, or runs but has not answered yet; Failed: the last one
 * failed (with why, the telling stderr lines and a likely fix); Stopped otherwise.
 */
export type ServerRunState =
  | { kind: 'ready'; count: number; oldestRevision: number }
  | { kind: 'starting'; count: number; oldestRevision?: number }
  /** `note`: why the last instance ended, when it did not end cleanly. */
  | { kind: 'stopped'; note?: string; lines?: string[]; hint?: FailureHint }
  | { kind: 'failed'; reason: string; remedy?: string; lines?: string[]; hint?: FailureHint };

const isLive = (i: InstanceView) =>
  i.state.kind === 'running' || i.state.kind === 'starting' || i.state.kind === 'stopping';

/** An instance whose server answered `initialize` (a core that does not say counts as ready). */
const isReady = (i: InstanceView) => i.state.kind === 'running' && i.ready !== false;

/** The stderr lines worth showing for an instance that ended: the core's pick, else the last. */
function linesOf(i: InstanceView): string[] | undefined {
  const lines = i.failure?.lines ?? i.stderrTail.filter((l) => l.trim() !== '').slice(-3);
  return lines.length > 0 ? lines : undefined;
}

/** Folds a server's instances into one state: ready wins, then starting, then the last ending. */
export function serverRunState(instances: readonly InstanceView[], server: string): ServerRunState {
  const mine = instances.filter((i) => i.server === server);
  const ready = mine.filter(isReady);
  if (ready.length > 0) {
    return {
      kind: 'ready',
      count: ready.length,
      oldestRevision: Math.min(...ready.map((i) => i.revision)),
    };
  }
  const starting = mine.filter(
    (i) =>
      i.state.kind === 'starting' ||
      i.state.kind === 'running' ||
      (i.state.kind === 'exited' && i.state.reason.endsWith('restarting')),
  );
  if (starting.length > 0) {
    const running = starting.filter((i) => i.state.kind === 'running');
    return running.length > 0
      ? {
          kind: 'starting',
          count: starting.length,
          oldestRevision: Math.min(...running.map((i) => i.revision)),
        }
      : { kind: 'starting', count: starting.length };
  }
  const last = mine.at(-1);
  const lines = last ? linesOf(last) : undefined;
  const extra = {
    ...(lines ? { lines } : {}),
    ...(last?.failure?.hint ? { hint: last.failure.hint } : {}),
  };
  if (last?.state.kind === 'failed') {
    return {
      kind: 'failed',
      reason: last.state.launchError?.message ?? last.state.reason,
      ...(last.state.launchError?.remedy ? { remedy: last.state.launchError.remedy } : {}),
      ...extra,
    };
  }
  if (last?.state.kind === 'exited' && (last.state.signal || (last.state.code ?? 0) !== 0)) {
    const how = last.state.signal
      ? `killed by ${last.state.signal}`
      : `exited with code ${last.state.code}`;
    return { kind: 'stopped', note: `last run ${how}`, ...extra };
  }
  return { kind: 'stopped' };
}

/** The health word shown for a run state. */
export function runStateLabel(state: ServerRunState): string {
  switch (state.kind) {
    case 'ready':
      return 'Ready';
    case 'starting':
      return 'Starting';
    case 'stopped':
      return 'Stopped';
    case 'failed':
      return 'Failed';
  }
}

/**
 * Folder roots the last launch of `server` refused (missing, or resolving elsewhere), by path, as
 * "message (revision N). To fix: remedy": shown beside the folder in the policy editor.
 */
export function rootProblems(
  instances: readonly InstanceView[],
  server: string,
): Record<string, string> {
  const last = instances.filter((i) => i.server === server).at(-1);
  if (last?.state.kind !== 'failed' || last.state.launchError?.kind !== 'root-invalid') return {};
  const { message, remedy } = last.state.launchError;
  const path = /^root "(.*?)"/.exec(message)?.[1];
  if (!path) return {};
  return {
    [path]: `At the last launch (revision ${last.revision}): ${message}. To fix: ${remedy}`,
  };
}

// Run states by server, computed once per instances list: every row reads its own on every store
// change, and the same object back means no re-render.
const runStates = new WeakMap<readonly InstanceView[], Map<string, ServerRunState>>();
const noInstances: InstanceView[] = [];

function runStateOf(instances: readonly InstanceView[], server: string): ServerRunState {
  let states = runStates.get(instances);
  if (!states) {
    const byServer = new Map<string, InstanceView[]>();
    for (const i of instances) {
      const list = byServer.get(i.server);
      if (list) list.push(i);
      else byServer.set(i.server, [i]);
    }
    states = new Map([...byServer].map(([name, list]) => [name, serverRunState(list, name)]));
    runStates.set(instances, states);
  }
  let state = states.get(server);
  if (!state) {
    state = serverRunState(noInstances, server);
    states.set(server, state);
  }
  return state;
}

export const instancesSelectors = {
  all: (s: Root) => s.instances,
  /** The same object while the instances are unchanged. */
  runState: (server: string) => (s: Root) => runStateOf(s.instances, server),
  /** A new object: read with useShallow. */
  rootProblems: (server: string) => (s: Root) => rootProblems(s.instances, server),
  /** Live instances of a server (a new array: read with useShallow). */
  liveOf: (server: string) => (s: Root) =>
    s.instances.filter((i) => i.server === server && isLive(i)),
};
