/**
 * A three-way merge of plain JSON values, used to rebase an edited draft onto a newer stored
 * revision: what only one side changed is taken from that side, lists merge as sets (the user's
 * additions and removals applied to the newer list), and a field both sides changed differently
 * keeps the user's value and is reported as a conflict.
 */

type Json = unknown;

/** Deeper than any policy: past it a value is compared whole instead of walked. */
const MAX_DEPTH = 12;

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);
const isRecord = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const keyed = (v: Json): v is Array<{ path: string }> =>
  Array.isArray(v) && v.every((e) => isRecord(e) && typeof e['path'] === 'string');

/** The result of a merge: the merged value and the fields both sides changed differently. */
export interface Merged<T> {
  value: T;
  conflicts: string[];
}

/**
 * Merges `mine` (edited from `base`) with `theirs` (stored since `base`). `field` names the
 * value in reported conflicts, e.g. `policy` gives `policy.network.mode`. Lists named in
 * `ordered` (command arguments) are never merged as sets: changed on both sides, they conflict.
 */
export function mergeThreeWay<T>(
  base: T,
  mine: T,
  theirs: T,
  field: string,
  ordered: readonly string[] = [],
): Merged<T> {
  const ctx: Ctx = { ordered: new Set(ordered), conflicts: [] };
  const value = merge(base, mine, theirs, field, 0, ctx) as T;
  return { value, conflicts: ctx.conflicts };
}

interface Ctx {
  ordered: Set<string>;
  conflicts: string[];
}

function merge(base: Json, mine: Json, theirs: Json, field: string, depth: number, ctx: Ctx) {
  if (same(mine, base)) return theirs;
  if (same(theirs, base) || same(mine, theirs)) return mine;
  if (depth < MAX_DEPTH && !ctx.ordered.has(field)) {
    if (isRecord(base) && isRecord(mine) && isRecord(theirs))
      return mergeRecords(base, mine, theirs, field, depth, ctx);
    if (keyed(base) && keyed(mine) && keyed(theirs)) {
      // Entries with a path (folder roots) merge per path, so an access change is one field.
      const byPath = (list: Array<{ path: string }>) =>
        Object.fromEntries(list.map((e) => [e.path, e]));
      const merged = mergeRecords(byPath(base), byPath(mine), byPath(theirs), field, depth, ctx);
      return orderedUnion(theirs, mine).flatMap((e) => {
        const m = merged[e.path];
        return m === undefined ? [] : [m];
      });
    }
    if (Array.isArray(base) && Array.isArray(mine) && Array.isArray(theirs))
      return mergeSets(base, mine, theirs);
  }
  ctx.conflicts.push(field);
  return mine;
}

function mergeRecords(
  base: Record<string, Json>,
  mine: Record<string, Json>,
  theirs: Record<string, Json>,
  field: string,
  depth: number,
  ctx: Ctx,
): Record<string, Json> {
  const result: Record<string, Json> = {};
  for (const key of new Set([...Object.keys(theirs), ...Object.keys(mine), ...Object.keys(base)])) {
    const value = merge(base[key], mine[key], theirs[key], `${field}.${key}`, depth + 1, ctx);
    if (value !== undefined) result[key] = value;
  }
  return result;
}

/** The newer list, less what the user removed, plus what the user added (in their order). */
function mergeSets(base: Json[], mine: Json[], theirs: Json[]): Json[] {
  const key = (v: Json) => JSON.stringify(v);
  const baseKeys = new Set(base.map(key));
  const mineKeys = new Set(mine.map(key));
  const removed = new Set([...baseKeys].filter((k) => !mineKeys.has(k)));
  const kept = theirs.filter((v) => !removed.has(key(v)));
  const keptKeys = new Set(kept.map(key));
  const added = mine.filter((v) => !baseKeys.has(key(v)) && !keptKeys.has(key(v)));
  return [...kept, ...added];
}

/** Entries of `first`, then those of `second` whose path is not in `first`. */
function orderedUnion<E extends { path: string }>(first: E[], second: E[]): E[] {
  const seen = new Set(first.map((e) => e.path));
  return [...first, ...second.filter((e) => !seen.has(e.path))];
}
