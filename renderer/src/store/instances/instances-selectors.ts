/** Reads of the instances slice, and the server state the list shows. */
import type { InstanceView } from '../../../../app/contract/instances';
import type { Root } from '../root-store';

/** What the servers list says about a server's instances. */
export type ServerRunState =
  | { kind: 'running'; count: number; oldestRevision: number }
  | { kind: 'starting' }
  /** `note`: why the last instance ended, when it did not end cleanly. */
  | { kind: 'stopped'; note?: string; lastOutput?: string }
  | { kind: 'failed'; reason: string; remedy?: string; lastOutput?: string };

const isLive = (i: InstanceView) =>
  i.state.kind === 'running' || i.state.kind === 'starting' || i.state.kind === 'stopping';

/** Folds a server's instances into one state: running wins, then the last failure. */
export function serverRunState(instances: readonly InstanceView[], server: string): ServerRunState {
  const mine = instances.filter((i) => i.server === server);
  const running = mine.filter((i) => i.state.kind === 'running');
  if (running.length > 0) {
    return {
      kind: 'running',
      count: running.length,
      oldestRevision: Math.min(...running.map((i) => i.revision)),
    };
  }
  if (mine.some((i) => i.state.kind === 'starting')) return { kind: 'starting' };
  const last = mine.at(-1);
  const stderr = last?.stderrTail.at(-1);
  if (last?.state.kind === 'failed') {
    return {
      kind: 'failed',
      reason: last.state.isolation?.message ?? last.state.reason,
      remedy: last.state.isolation?.remedy,
      lastOutput: stderr,
    };
  }
  if (last?.state.kind === 'exited' && (last.state.signal || (last.state.code ?? 0) !== 0)) {
    const how = last.state.signal
      ? `killed by ${last.state.signal}`
      : `exited with code ${last.state.code}`;
    return { kind: 'stopped', note: `last run ${how}`, lastOutput: stderr };
  }
  return stderr ? { kind: 'stopped', lastOutput: stderr } : { kind: 'stopped' };
}

/** The words for a run state, exactly as shown. */
export function runStateLabel(state: ServerRunState): string {
  switch (state.kind) {
    case 'running':
      return state.count === 1 ? 'Running (1 instance)' : `Running (${state.count} instances)`;
    case 'starting':
      return 'Starting';
    case 'stopped':
      return state.note ? `Stopped (${state.note})` : 'Stopped';
    case 'failed':
      return `Failed: ${state.reason}`;
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
  if (last?.state.kind !== 'failed' || last.state.isolation?.kind !== 'root-invalid') return {};
  const { message, remedy } = last.state.isolation;
  const path = /^root "(.*?)"/.exec(message)?.[1];
  if (!path) return {};
  return {
    [path]: `At the last launch (revision ${last.revision}): ${message}. To fix: ${remedy}`,
  };
}

export const instancesSelectors = {
  all: (s: Root) => s.instances,
  runState: (server: string) => (s: Root) => serverRunState(s.instances, server),
  /** A new object: read with useShallow. */
  rootProblems: (server: string) => (s: Root) => rootProblems(s.instances, server),
  /** Live instances of a server (a new array: read with useShallow). */
  liveOf: (server: string) => (s: Root) =>
    s.instances.filter((i) => i.server === server && isLive(i)),
};
