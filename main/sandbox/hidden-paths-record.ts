/**
 * The on-disk form of hidden-path search records: one JSON file per root and set of name
 * patterns. Parsing is strict: a file that names another root or other patterns, a folder outside
 * the root, a name that is not a plain entry name, or any field of the wrong shape makes the whole
 * file unusable (the caller then searches in full).
 */
const FORMAT = 1;

/** One folder as the search last read it. */
export interface FolderRecord {
  dev: number;
  ino: number;
  /**
   * The ctime in milliseconds with its fraction. Exact enough: a folder is recorded only when its
   * ctime is seconds older than its read, and any later change sets a ctime at least that much newer.
   */
  ctimeMs: number;
  /** Entries in the folder (what the search's entry budget counts). */
  count: number;
  /** Sub-folders (not symlinks) whose names match no pattern: where the search goes on. */
  dirs: readonly string[];
  /** Entries whose names match a pattern. */
  matches: readonly string[];
}

/** Folder records by absolute path, for one root and one set of name patterns. */
export type FolderRecords = ReadonlyMap<string, FolderRecord>;

type Row = [string, number, number, number, number, string[], string[]];

/** The records of `root` for `patterns` as the text of a record file. */
export function serializeFolderRecords(
  root: string,
  patterns: readonly string[],
  records: FolderRecords,
): string {
  const rows: Row[] = [];
  for (const [path, r] of records) {
    rows.push([path, r.dev, r.ino, r.ctimeMs, r.count, [...r.dirs], [...r.matches]]);
  }
  return JSON.stringify({ format: FORMAT, root, patterns: [...patterns].sort(), folders: rows });
}

const isStat = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;

const isName = (n: unknown): n is string =>
  typeof n === 'string' &&
  n !== '' &&
  n !== '.' &&
  n !== '..' &&
  !n.includes('/') &&
  !n.includes('\0');

const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every(isName);

/** Adds one row to `records`; false when it is not a folder of `root` of the right shape. */
function addRow(row: unknown, root: string, records: Map<string, FolderRecord>): boolean {
  if (!Array.isArray(row) || row.length !== 7) return false;
  const [path, dev, ino, ctime, count, dirs, matches] = row as unknown[];
  if (typeof path !== 'string' || path.includes('\0')) return false;
  const inside = path.startsWith(root) && (root === '/' || path[root.length] === '/');
  if (path !== root && !inside) return false;
  if (!isStat(dev) || !isStat(ino) || !isStat(ctime)) return false;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return false;
  if (!isNames(dirs) || !isNames(matches) || dirs.length + matches.length > count) return false;
  records.set(path, { dev, ino, ctimeMs: ctime, count, dirs, matches });
  return true;
}

/** The records in `text` when it is a valid record file of `root` and `patterns`, else undefined. */
export function parseFolderRecords(
  text: string,
  root: string,
  patterns: readonly string[],
): FolderRecords | undefined {
  let f: Record<string, unknown>;
  try {
    // Anything but an object (null included) becomes one without `format`, and is refused below.
    f = Object(JSON.parse(text)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const wanted = [...patterns].sort();
  if (f.format !== FORMAT || f.root !== root || !Array.isArray(f.folders)) return undefined;
  if (!Array.isArray(f.patterns) || f.patterns.length !== wanted.length) return undefined;
  if (!wanted.every((p, i) => (f.patterns as unknown[])[i] === p)) return undefined;
  const records = new Map<string, FolderRecord>();
  for (const row of f.folders as unknown[]) if (!addRow(row, root, records)) return undefined;
  return records;
}
