/**
 * Beside config.json (`config.json.written`), the last text whose change a Warden process has
 * taken on recording: the one it wrote, or a hand edit it took in. A store taking in a change from
 * outside records it only when the mark is not that text; a store opening on a file that differs
 * from it announces the difference (`ConfigStore.announceOfflineEdit`).
 */
import { readFile } from 'node:fs/promises';
import { migrateConfig } from '../../app/policy/config-migrations';
import type { Config } from '../../app/policy/policy-schema';
import { withLockFile } from '../core/core-lock';
import { type AtomicWriteOps, realAtomicWriteOps, writeFileAtomic } from './atomic-write';

/** Whether a change taken in from config.json is another core's to record or this one's. */
export type Reloaded = 'recorded' | 'to-record';

/** How long a change waits for another process's change to config.json. */
export const CHANGE_WAIT_MS = 10_000;

export class ConfigMark {
  readonly path: string;
  /** The text of the hand edit this process last took on recording (see `whoRecords`). */
  private claimed: string | undefined;

  constructor(private readonly configPath: string) {
    this.path = `${configPath}.written`;
  }

  read(): Promise<string | undefined> {
    return readFile(this.path, 'utf8').catch(() => undefined);
  }

  /** This process writes config.json from here on: a hand edit claimed before is no longer its. */
  release(): void {
    this.claimed = undefined;
  }

  /**
   * Writes `text`, this process's own write, as the mark. It goes before config.json's, so that a
   * store reading the new text finds it here.
   */
  write(text: string, ops: AtomicWriteOps): Promise<void> {
    return writeFileAtomic(this.path, text, ops);
  }

  /**
   * Puts back what config.json still holds after its write failed, or a store opening would take
   * the difference for an edit made while no Warden ran.
   */
  async restore(): Promise<void> {
    const kept = await readFile(this.configPath, 'utf8').catch(() => undefined);
    if (kept !== undefined)
      await writeFileAtomic(this.path, kept, realAtomicWriteOps).catch(() => undefined);
  }

  /**
   * Whether the change to `text`, read from the file, is recorded by another Warden process's
   * core: the one that wrote it (the mark holds it), or one that took in the same hand edit first.
   * A hand edit is claimed by writing it as the mark under config.json's lock, so that of the
   * cores taking it in, one records it. When the lock cannot be had (a process holds it past the
   * wait) or the file changed again meanwhile, this process records it: a row twice rather than
   * none. `underLock`: the caller holds config.json's lock already.
   */
  async whoRecords(text: string, underLock: boolean): Promise<Reloaded> {
    if (this.claimed === text) return 'to-record';
    const marked = async () => (await this.read()) === text;
    if (await marked()) return 'recorded';
    const claim = async (): Promise<Reloaded> => {
      if (this.claimed !== text && (await marked())) return 'recorded';
      const now = await readFile(this.configPath, 'utf8').catch(() => undefined);
      if (now !== text) return 'to-record';
      // A mark that cannot be written lets the other cores record it too.
      await writeFileAtomic(this.path, text, realAtomicWriteOps).catch(() => undefined);
      this.claimed = text;
      return 'to-record';
    };
    if (underLock) return claim();
    const what = 'taking in a change to config.json';
    return withLockFile(this.configPath, what, claim, CHANGE_WAIT_MS).catch(
      (): Reloaded => 'to-record',
    );
  }

  /**
   * What config.json held when its change was last accounted for, where `loaded` (the file as
   * opened) differs from it: changed while no Warden process followed it. A mark that is not a
   * config (an older build's, or none) gives nothing.
   */
  async offlineBefore(loaded: string | undefined): Promise<Config | undefined> {
    const mark = await this.read();
    if (mark === undefined || loaded === undefined || mark === loaded) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(mark);
    } catch {
      return undefined;
    }
    const migrated = migrateConfig(raw);
    if (migrated.kind !== 'current' && migrated.kind !== 'migrated') return undefined;
    // Only compared with, never used: the shape a comparison needs is checked, not the schema
    // (the mark was valid when written, and no zod is loaded on a session's path for it).
    const doc = migrated.doc as { servers?: unknown };
    const named = (s: unknown) => typeof (s as { name?: unknown } | null)?.name === 'string';
    if (!Array.isArray(doc.servers) || !doc.servers.every(named)) return undefined;
    return migrated.doc as Config;
  }
}
