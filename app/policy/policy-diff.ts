/** Which fields of a server changed between two revisions, for the audit log and the UI. */
import { canonicalJson } from '../audit/canonical-json';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Dotted paths (e.g. `policy.network.allow`) whose values differ; arrays compare whole. */
export function changedPaths(before: unknown, after: unknown, prefix = '', depth = 4): string[] {
  if (canonicalJson(before) === canonicalJson(after)) return [];
  if (depth === 0 || !isObject(before) || !isObject(after)) return [prefix || '(root)'];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((k) =>
    changedPaths(before[k], after[k], prefix ? `${prefix}.${k}` : k, depth - 1),
  );
}

/**
 * The parts of a server's config that a running instance follows as they change: the tool gate
 * reads the tool policy at every message, the idle timer its timeout. Everything else (the
 * command, folders, network rules, environment, limits, isolation, hidden paths) is applied when
 * the server next starts.
 */
const LIVE = ['policy.tools', 'policy.idleTimeoutSeconds'];

/** True when every path in `changed` is one a running instance follows without a restart. */
export function appliesLive(changed: readonly string[]): boolean {
  return changed.every((path) => LIVE.some((live) => path === live || path.startsWith(`${live}.`)));
}
