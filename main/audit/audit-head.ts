/**
 * The recorded head of the audit log: the id, hash and time of the newest row, kept in a small
 * file beside the config (`audit-head.json`) that the database's writer never touches. A hash
 * chain alone cannot show rows cut from its end; comparing the log with this file can. It is
 * written atomically after committed batches (one write in flight, the newest head wins, at most
 * one write per {@link MIN_INTERVAL_MS} so that a busy log does not fsync continuously), so it
 * trails the log by at most that long. Several Warden processes write one log (the app, each
 * standalone `warden connect`): each writes the log's newest row as it reads it under the file's
 * lock, never just its own batch's, so that a write that waited its interval cannot put back an
 * older head over the one another process wrote meanwhile.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { writeFileAtomic } from '../config/atomic-write';
import { withLockFile } from '../core/core-lock';

/** The shortest time between two writes of the head file. */
export const MIN_INTERVAL_MS = 200;

/** How long a write waits for another process's write of the head file. */
const LOCK_WAIT_MS = 2000;

export interface AuditHead {
  id: number;
  hash: string;
  ts: string;
}

/** What a comparison of the log with its recorded head found. */
export type HeadCheck =
  | { kind: 'ok' }
  | { kind: 'none' }
  | { kind: 'truncated'; recorded: AuditHead; lastId: number; missing: number; reason: string };

/** The recorded head in `path`, or `undefined` when there is none (or it is unreadable). */
export function readHead(path: string): AuditHead | undefined {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<AuditHead>;
    if (
      typeof raw.id === 'number' &&
      Number.isInteger(raw.id) &&
      raw.id > 0 &&
      typeof raw.hash === 'string' &&
      /^[0-9a-f]{64}$/.test(raw.hash) &&
      typeof raw.ts === 'string'
    ) {
      return { id: raw.id, hash: raw.hash, ts: raw.ts };
    }
  } catch {
    // A missing file is the normal state of a new log; a garbled one is reported as none.
  }
  return undefined;
}

/** Compares the log with a recorded head: the recorded row must still exist, unchanged. */
export function checkHead(db: Database.Database, recorded: AuditHead | undefined): HeadCheck {
  if (!recorded) return { kind: 'none' };
  const last = db.prepare('SELECT max(id) FROM audit').pluck().get() as number | null;
  const row = db.prepare('SELECT hash FROM audit WHERE id = ?').pluck().get(recorded.id) as
    string | undefined;
  const lastId = last ?? 0;
  if (row === recorded.hash) return { kind: 'ok' };
  const at = `row ${recorded.id} (hash ${recorded.hash.slice(0, 16)}…, ${recorded.ts})`;
  if (lastId < recorded.id) {
    const missing = recorded.id - lastId;
    return {
      kind: 'truncated',
      recorded,
      lastId,
      missing,
      reason: `rows ${lastId + 1}-${recorded.id} are missing from the end (cut, or lost in a system crash before they reached the disk): the recorded head is ${at}, the log ends at row ${lastId} (${missing} rows missing)`,
    };
  }
  if (row === undefined) {
    // The recorded head lies before the log's first row: retention pruned past it, which it
    // never does to the newest row, or rows were removed from the start.
    const first = db.prepare('SELECT min(id) FROM audit').pluck().get() as number | null;
    if (first !== null && first > recorded.id) return { kind: 'ok' };
  }
  return {
    kind: 'truncated',
    recorded,
    lastId,
    missing: 0,
    reason: `row ${recorded.id} is not the recorded head ${at}: the log was cut there and written again`,
  };
}

/**
 * Writes the newest head to `path`, one atomic write at a time and at most one per
 * {@link MIN_INTERVAL_MS}: a head recorded sooner waits for the interval's end, and only the
 * newest one recorded by then is written. `flush` ends the wait.
 */
export class HeadWriter {
  private latest: AuditHead | undefined;
  private running: Promise<void> | undefined;
  /** When the last write started (ms, `Date.now()`). */
  private lastWrite = -Infinity;
  /** Ends the wait for the interval, when one is in progress. */
  private hurry: AbortController | undefined;

  /**
   * `newest` reads the log's newest row (its connection's view, which another process's commits
   * reach too); without it the head recorded last is written as it is.
   */
  constructor(
    private readonly path: string,
    private readonly onError: (e: unknown) => void,
    private readonly write: (path: string, text: string) => Promise<void> = writeFileAtomic,
    private readonly newest?: () => AuditHead | undefined,
  ) {}

  record(head: AuditHead): void {
    this.latest = head;
    this.running ??= this.drain();
  }

  /** Resolves once the newest head recorded so far is on disk (without waiting the interval). */
  async flush(): Promise<void> {
    for (;;) {
      const running = this.running;
      if (!running) return;
      this.hurry?.abort();
      await running;
      if (this.running === running) return;
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.latest) {
        const wait = MIN_INTERVAL_MS - (Date.now() - this.lastWrite);
        if (wait > 0) {
          this.hurry = new AbortController();
          await delay(wait, undefined, { signal: this.hurry.signal }).catch(() => undefined);
          this.hurry = undefined;
        }
        const head = this.latest;
        this.latest = undefined;
        this.lastWrite = Date.now();
        await this.writeHead(head).catch(this.onError);
      }
    } finally {
      this.running = undefined;
    }
  }

  /** Writes `recorded`, or under the file's lock the log's newest head when it can read it. */
  private async writeHead(recorded: AuditHead): Promise<void> {
    if (!this.newest) return this.write(this.path, `${JSON.stringify(recorded)}\n`);
    const newest = this.newest;
    await withLockFile(
      this.path,
      'a write of the audit head',
      () => this.write(this.path, `${JSON.stringify(newest() ?? recorded)}\n`),
      LOCK_WAIT_MS,
    );
  }
}

/** The newest row of the log `db` holds, as its head. */
export function newestHead(db: Database.Database): AuditHead | undefined {
  const row = db.prepare('SELECT id, hash, ts FROM audit ORDER BY id DESC LIMIT 1').get() as
    AuditHead | undefined;
  return row ? { id: row.id, hash: row.hash, ts: row.ts } : undefined;
}
