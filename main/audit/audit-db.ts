/**
 * Opens `audit.db`: WAL journal, `synchronous=NORMAL` (a committed batch survives a killed
 * process; an OS crash may lose the last batches but never leaves a half-written one), the table,
 * its indexes and, where the bundled SQLite has FTS5, a full-text index over each row's summary.
 */
import type Database from 'better-sqlite3';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  statSync,
} from 'node:fs';
import { err, ok, type Result } from '../../app/result';
import { betterSqlite3 } from './sqlite-module';

export const AUDIT_SCHEMA_VERSION = 1;

/** Why the audit log could not be opened, with what a person can do about it. */
export interface AuditStoreError {
  kind: 'missing' | 'not-a-database' | 'newer-schema' | 'open-failed';
  message: string;
  remedy: string;
}

export interface AuditDb {
  db: Database.Database;
  /** True when the `audit_fts` full-text index exists (text search uses it). */
  fts: boolean;
  readonly: boolean;
}

/**
 * The refused and failed rows (few in a log), by outcome and id, for the outcome filter; a query
 * uses it only when it carries `RARE_OUTCOME` as well. `ok` and `info` rows are not in it: they
 * are most of a log (every relayed call writes one of each), so a walk by id finds them at once
 * and indexing them would cost every call. A log created before it gets it from the writer thread
 * (`addOutcomeIndex`).
 */
export const RARE_OUTCOMES: readonly string[] = ['refused', 'error'];
const RARE_LIST = RARE_OUTCOMES.map((o) => `'${o}'`).join(', ');
const OUTCOME_INDEX = `CREATE INDEX IF NOT EXISTS audit_rare_outcome_id ON audit(outcome, id) WHERE outcome IN (${RARE_LIST});`;

/** The term that lets a query use that index: the index's own condition, word for word. */
export const RARE_OUTCOME = `audit.outcome IN (${RARE_LIST})`;

const TABLE = `
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  kind TEXT NOT NULL,
  server TEXT,
  instance TEXT,
  outcome TEXT NOT NULL,
  text TEXT NOT NULL,
  body TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_server_id ON audit(server, id);
CREATE INDEX IF NOT EXISTS audit_kind_id ON audit(kind, id);
CREATE INDEX IF NOT EXISTS audit_instance_id ON audit(instance, id);
CREATE INDEX IF NOT EXISTS audit_server_kind_id ON audit(server, kind, id);
${OUTCOME_INDEX}
`;

// External-content FTS5: the text lives once, in `audit`; the index holds only tokens.
const FTS = `CREATE VIRTUAL TABLE IF NOT EXISTS audit_fts USING fts5(
  text, content='audit', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);`;

export interface OpenAuditDbOptions {
  readonly?: boolean;
  /**
   * Build the full-text index when the log is created (default: when FTS5 is available).
   * `false` searches with LIKE over the newest rows. An existing log keeps what it has.
   */
  fts?: boolean;
  /** How long a statement waits for another connection's lock. Default 5000 ms. */
  busyTimeoutMs?: number;
}

/** What loading better-sqlite3's native module says when it was built for another Node.js. */
const BUILT_FOR_ANOTHER_NODE = /NODE_MODULE_VERSION|compiled against a different Node\.js/;

/**
 * What better-sqlite3's `bindings` helper says when its native module was never built: its
 * install script did not run (`npm install --ignore-scripts`, or an npm that runs a dependency's
 * install script only where package.json's `allowScripts` approves it).
 */
const NEVER_BUILT = /Could not locate the bindings file/;

/** Opens (and, unless read-only, creates) the audit database at `path`. */
export function openAuditDb(
  path: string,
  options: OpenAuditDbOptions = {},
): Result<AuditDb, AuditStoreError> {
  const readonly = options.readonly ?? false;
  if (readonly && path !== ':memory:' && !existsSync(path)) {
    return err({
      kind: 'missing',
      message: `There is no audit log at ${path} yet.`,
      remedy: 'Start a server under MCP Warden once; its events are recorded there.',
    });
  }
  let db: Database.Database | undefined;
  try {
    const { Database: Sqlite, nativeBinding } = betterSqlite3();
    if (path !== ':memory:' && path !== '') keepLogPrivate(path, readonly);
    db = new Sqlite(path, {
      readonly,
      fileMustExist: readonly,
      ...(nativeBinding ? { nativeBinding } : {}),
    });
    const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > AUDIT_SCHEMA_VERSION) {
      db.close();
      return err({
        kind: 'newer-schema',
        message: `${path} was written by a newer MCP Warden (audit schema ${version}).`,
        remedy: 'Update MCP Warden, or point WARDEN_HOME at another directory.',
      });
    }
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // Only a new log is written to here, so opening an existing one never waits for a lock
      // (nor does forgetting statistics).
      if (version < AUDIT_SCHEMA_VERSION) createSchema(db, options.fts ?? ftsAvailable(db));
      forgetPlannerStats(db, busyTimeoutMs);
    }
    const fts = db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'audit_fts'")
      .get();
    return ok({ db, fts: fts !== undefined, readonly });
  } catch (e) {
    db?.close();
    const message = e instanceof Error ? e.message : String(e);
    const code = (e as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      return err({
        kind: 'not-a-database',
        message: `${path} is not a readable audit database: ${message}`,
        remedy: 'Move the file aside (keep it as evidence) and restart; a new log is started.',
      });
    }
    return err({
      kind: 'open-failed',
      // Never built: `bindings` lists the dozen places it looked; the remedy says what to do.
      message: `Cannot open the audit log ${path}: ${message.replace(/\. Tried:[\s\S]*$/, '')}`,
      remedy: openFailedRemedy(path, message),
    });
  }
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The log and its -wal and -shm files are the user's alone: they hold tool arguments. SQLite makes
 * the -wal and -shm with the mode of the log itself, so a new log is made 0600 before SQLite opens
 * it, whatever the umask; files of this user that group or others may read or write (an older
 * Warden made them with the umask, 0644) lose that access.
 */
function keepLogPrivate(path: string, readonly: boolean): void {
  if (process.platform === 'win32') return;
  if (!readonly) {
    try {
      closeSync(openSync(path, CREATE, 0o600));
    } catch {
      // There already, or not possible (no folder, say): SQLite opens it or says why not.
    }
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const info = lstatSync(file, { throwIfNoEntry: false });
    if (!info?.isFile() || (info.mode & 0o077) === 0 || info.uid !== process.getuid?.()) continue;
    chmodSync(file, info.mode & 0o7777 & ~0o077);
  }
}

function openFailedRemedy(path: string, message: string): string {
  if (BUILT_FOR_ANOTHER_NODE.test(message)) {
    return (
      `better-sqlite3 (the audit log's SQLite) was built for another Node.js than this one ` +
      `(${process.version}): run "npm rebuild better-sqlite3" in MCP Warden's folder with it.`
    );
  }
  if (NEVER_BUILT.test(message)) {
    return (
      `better-sqlite3 (the audit log's SQLite) has no native module: its install script did not ` +
      `run. Run "npm rebuild better-sqlite3" in MCP Warden's folder; if npm says it blocked the ` +
      `script, approve it first with "npm install-scripts approve better-sqlite3".`
    );
  }
  let stats;
  try {
    stats = statSync(path);
  } catch {
    stats = undefined;
  }
  if (stats && !stats.isFile()) {
    return `${path} is not a file: move it aside (keep it if it matters), and a new log is started there.`;
  }
  return 'Check that the directory exists and is writable, and that the disk is not full.';
}

/**
 * The audit log keeps no query-planner statistics: without them SQLite walks the log by its id
 * and indexes as the queries are written (what the benches measure). Statistics go stale as the
 * log grows, and earlier builds recorded them when a log was new (`PRAGMA optimize` at close, on
 * a log of one row). With one row on record SQLite walks the whole table for a lookup by id, on
 * the thread that relays: on a log of 61,000 rows, 14–18 ms for a page of the audit list after the
 * first and 114–118 ms for retention's search for its cut-off (at each start and every 10
 * minutes), against 1–4 and 1–3 ms without them. Any found are removed once; a log that another
 * connection is writing is not waited for (a later open tries again).
 */
function forgetPlannerStats(db: Database.Database, busyTimeoutMs: number): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'sqlite_stat[14]'")
    .pluck()
    .all() as string[];
  const held = tables.filter((t) => db.prepare(`SELECT 1 FROM ${t} LIMIT 1`).get() !== undefined);
  if (held.length === 0) return;
  try {
    db.pragma('busy_timeout = 0');
    db.transaction(() => {
      for (const t of held) db.exec(`DELETE FROM ${t}`);
    }).immediate();
    // Reloads what the planner knows: nothing now.
    db.exec('ANALYZE sqlite_schema');
  } catch {
    // Locked by another connection: the statistics stay until a later open.
  } finally {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }
}

/**
 * Builds the outcome index on a log created before it, off the relaying thread: on a big log it
 * reads every row once (114 ms for 61,000 rows). Until then, and where it fails, the outcome
 * filter walks the log, as before.
 */
export function addOutcomeIndex(db: Database.Database): void {
  try {
    db.exec(OUTCOME_INDEX);
  } catch {
    // Busy or read-only: a later start builds it.
  }
}

function createSchema(db: Database.Database, withFts: boolean): void {
  db.transaction(() => {
    db.exec(TABLE);
    if (withFts) db.exec(FTS);
    db.pragma(`user_version = ${AUDIT_SCHEMA_VERSION}`);
  }).immediate();
}

function ftsAvailable(db: Database.Database): boolean {
  const row = db.prepare("SELECT sqlite_compileoption_used('ENABLE_FTS5') AS on_").get() as {
    on_: number;
  };
  return row.on_ === 1;
}
