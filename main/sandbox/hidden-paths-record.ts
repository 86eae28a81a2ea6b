/**
 * The on-disk form of hidden-path search records: one JSON file per root and set of name
 * patterns. Parsing is strict: a file that names another root or other patterns, a folder outside
 * the root, a name that is not a plain entry name, or any field of the wrong shape makes the whole
 * file unusable (the caller then searches in full).
 */
/**
 * 3: folders holding a name that is not valid UTF-8 are no longer recorded as read; 4: names are
 * matched whatever their case.
 */
const FORMAT = 4;

/** One folder as the search last read it. */
export interface FolderRecord {
  dev: number;
  ino: number;
  /**
   * The ctime in milliseconds with its fraction. Exact enough: a folder is recorded only when its
   * ctime is seconds older than its read; any later change sets a ctime at least that much newer.
   */
  ctimeMs: number;
  /** Entries in the folder (what the search's entry budget counts). */
  count: number;
  /** Sub-folders (not symlinks) whose names match no pattern: where the search goes on. */
  dirs: readonly string[];
  /** Entries whose names match a pattern. */
  matches: readonly string[];
  /** The folder could not be listed (EACCES, EPERM) and is masked whole; no entries recorded. */
  denied?: boolean;
  /** A security control refused the listing (EPERM): tried again by every search. */
  refused?: boolean;
}

/** Folder records by absolute path, for one root and one set of name patterns. */
export type FolderRecords = ReadonlyMap<string, FolderRecord>;

/** The last field: 0 listed, 1 denied by permissions, 2 refused by a security control. */
type Row = [string, number, number, number, number, string[], string[], 0 | 1 | 2];

/** The records of `root` for `patterns` as the text of a record file. */
export function serializeFolderRecords(
  root: string,
  patterns: readonly string[],
  records: FolderRecords,
): string {
  const rows: Row[] = [];
  for (const [path, r] of records) {
    rows.push([
      path,
      r.dev,
      r.ino,
      r.ctimeMs,
      r.count,
      [...r.dirs],
      [...r.matches],
      r.refused ? 2 : r.denied ? 1 : 0,
    ]);
  }
  return JSON.stringify({ format: FORMAT, root, patterns: [...patterns].sort(), folders: rows });
}

const isStat = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;

/**
 * Whether `v` is a list of plain entry names. Indexed loops without closures or destructuring:
 * a new process runs this once per folder before the JIT has warmed up.
 */
export function isNames(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const n: unknown = v[i];
    if (typeof n !== 'string' || n === '' || n === '.' || n === '..') return false;
    if (n.includes('/') || n.includes('\0')) return false;
  }
  return true;
}

/** The record in `row` when it is a folder of the root (`prefix` is the root with a slash). */
function recordOf(row: unknown, root: string, prefix: string): FolderRecord | undefined {
  if (!Array.isArray(row) || row.length !== 8) return undefined;
  const path: unknown = row[0];
  if (typeof path !== 'string' || path.includes('\0')) return undefined;
  if (path !== root && !path.startsWith(prefix)) return undefined;
  const dev: unknown = row[1];
  const ino: unknown = row[2];
  const ctimeMs: unknown = row[3];
  const count: unknown = row[4];
  const dirs: unknown = row[5];
  const matches: unknown = row[6];
  if (!isStat(dev) || !isStat(ino) || !isStat(ctimeMs)) return undefined;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return undefined;
  if (!isNames(dirs) || !isNames(matches) || dirs.length + matches.length > count) return undefined;
  const denied: unknown = row[7];
  if (denied === 0) return { dev, ino, ctimeMs, count, dirs, matches };
  if ((denied !== 1 && denied !== 2) || count !== 0) return undefined;
  const record: FolderRecord = { dev, ino, ctimeMs, count, dirs, matches, denied: true };
  return denied === 2 ? { ...record, refused: true } : record;
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
  const rows = f.folders as unknown[];
  const prefix = root === '/' ? '/' : `${root}/`;
  const records = new Map<string, FolderRecord>();
  for (let i = 0; i < rows.length; i++) {
    const record = recordOf(rows[i], root, prefix);
    if (record === undefined) return undefined;
    records.set((rows[i] as string[])[0]!, record);
  }
  return records;
}
