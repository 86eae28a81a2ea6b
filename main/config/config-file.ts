/**
 * config.json and the config store's copy of it, kept in step: loaded at open, taken in again when
 * another process changes the file, and written back in order, atomically, after the mark beside
 * it (config-mark.ts). A file that cannot be used is moved aside with a timestamp and reported; it
 * is never overwritten. Kept apart from the store so that its operations read as changes to a
 * config, and what reaches the disk, and when, reads in one place.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigProblem } from '../../app/contract/servers';
import { CONFIG_SCHEMA_VERSION } from '../../app/policy/config-migrations';
import type { Config } from '../../app/policy/policy-schema';
import { type AtomicWriteOps, writeFileAtomic } from './atomic-write';
import { recordValid } from './validated-config-cache';
import { ConfigMark, type Reloaded } from './config-mark';
import { loadSchemas, readConfigText } from './config-text';
import { openStateFolder, readConfigJson } from './state-folder-trust';

export interface ConfigFileOptions {
  wardenHome: string;
  now: () => Date;
  writeOps: AtomicWriteOps;
  /** Schema identity for the record of validated bytes; undefined records none. */
  schemaId: string | undefined;
  /** A file was moved aside after start (an unusable edit from outside). */
  onProblem: (problem: ConfigProblem) => void;
  /**
   * The copy became what the file holds, changed from `before` by another process or, `atStart`,
   * while no Warden process followed the file; `reloaded` says who records that change.
   */
  onTakenIn: (before: Config, reloaded: Reloaded, atStart: boolean) => void;
}

export class ConfigFile {
  readonly path: string;
  /** Problems met while loading (a file moved aside). */
  readonly problems: ConfigProblem[] = [];
  private current: Config = { schemaVersion: CONFIG_SCHEMA_VERSION, servers: [] };
  private writeQueue: Promise<void> = Promise.resolve();
  /** The text of config.json as this store last read or wrote it. */
  private lastText: string | undefined;
  /** Beside config.json, the text whose change a Warden process last took on recording. */
  private readonly mark: ConfigMark;
  /**
   * What config.json held when its change was last accounted for, where the file changed while
   * no Warden process followed it (see `takeInOfflineEdit`).
   */
  private offlineEdit: { before: Config; text: string } | undefined;

  constructor(private readonly options: ConfigFileOptions) {
    this.path = join(options.wardenHome, 'config.json');
    this.mark = new ConfigMark(this.path);
  }

  /** The config as this store holds it: replaced, not changed in place, by each change. */
  get config(): Config {
    return this.current;
  }

  /**
   * Loads the file, creating `wardenHome` if needed. Never throws for a file that does not read as
   * a config (it is moved aside); throws StateFolderRefused, before anything is written, for a
   * folder or a config.json that may not be this user's alone (state-folder-trust.ts).
   */
  async open(): Promise<void> {
    await openStateFolder(this.options.wardenHome);
    await this.load();
    const before = await this.mark.offlineBefore(this.lastText);
    if (before && this.lastText !== undefined) this.offlineEdit = { before, text: this.lastText };
  }

  /**
   * Reports, through `onTakenIn`, the change made to config.json while no Warden process followed
   * it, when this is the store of those opening that records it (see the store's
   * `announceOfflineEdit`).
   */
  async takeInOfflineEdit(): Promise<void> {
    const edit = this.offlineEdit;
    this.offlineEdit = undefined;
    // Taken in meanwhile (a change of this store reloads the file first), or changed again.
    if (!edit || edit.text !== this.lastText) return;
    if ((await this.mark.whoRecords(edit.text, false)) !== 'to-record') return;
    if (edit.text === this.lastText) this.options.onTakenIn(edit.before, 'to-record', true);
  }

  /** Waits for every pending write. */
  async flush(): Promise<void> {
    await this.writeQueue;
  }

  /** Swaps the in-memory config and queues its durable write, in order. */
  async commit(next: Config): Promise<void> {
    this.current = next;
    const text = `${JSON.stringify(next, null, 2)}\n`;
    this.lastText = text;
    this.mark.release();
    const write = this.writeQueue.then(async () => {
      await this.mark.write(text, this.options.writeOps);
      try {
        await writeFileAtomic(this.path, text, this.options.writeOps);
      } catch (error) {
        // The file keeps its old text: so does the mark.
        await this.mark.restore();
        throw error;
      }
    });
    this.writeQueue = write.catch(() => undefined);
    await write;
  }

  private async load(): Promise<void> {
    const text = await readConfigJson(this.path);
    if (text !== undefined) await this.loadText(text);
  }

  private async loadText(text: string): Promise<void> {
    const read = await readConfigText(text, this.options.wardenHome, this.options.schemaId);
    if (read.kind === 'problem') {
      await this.moveAside(read.problem, read.message);
      return;
    }
    this.current = read.config;
    this.lastText = text;
    const id = this.options.schemaId;
    if (read.migrated) await this.commit(this.current);
    else if (id && read.recordable)
      this.writeQueue = this.writeQueue.then(() => recordValid(this.options.wardenHome, text, id));
  }

  /**
   * Takes in a change another process made to config.json (`warden servers add` while the app
   * runs), reported through `onTakenIn`. A file that became unusable is moved aside and
   * reported, and this store's own copy is written back.
   */
  async reloadIfChanged(underLock: boolean): Promise<void> {
    const queue = this.writeQueue;
    await queue;
    const expected = this.lastText;
    let text: string | undefined;
    try {
      // A file that is gone, or that others could have written, is not taken in.
      text = await readConfigJson(this.path);
    } catch {
      return;
    }
    if (text === undefined) return;
    // Loaded, and who wrote the text found out, before the checks below: once this store's copy
    // is set aside, nothing is awaited until the new one is in place, unless the file has to be
    // moved aside.
    if (text !== this.lastText) await loadSchemas();
    const reloaded: Reloaded =
      text === this.lastText ? 'recorded' : await this.mark.whoRecords(text, underLock);
    // A write of this store began meanwhile: the file read may be older than what this store
    // holds, never newer; the watch event of that write brings the next look.
    if (this.writeQueue !== queue || this.lastText !== expected) return;
    if (text === this.lastText) return;
    const before = this.current;
    const problemsBefore = this.problems.length;
    this.current = { schemaVersion: CONFIG_SCHEMA_VERSION, servers: [] };
    await this.loadText(text);
    if (this.problems.length > problemsBefore) {
      // Unusable: the file was moved aside; keep what this store had and write it back.
      this.current = before;
      await this.commit(before);
      return;
    }
    this.options.onTakenIn(before, reloaded, false);
  }

  private async moveAside(kind: ConfigProblem['kind'], message: string): Promise<void> {
    const at = this.options.now();
    const stamp = at.toISOString().replace(/[:.]/g, '-');
    const movedTo = `${this.path}.${kind}-${stamp}`;
    await rename(this.path, movedTo);
    const problem: ConfigProblem = { kind, message, movedTo, at: at.toISOString() };
    this.problems.push(problem);
    this.options.onProblem(problem);
  }
}
