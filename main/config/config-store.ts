/**
 * The config store: servers and their policies in `$WARDEN_HOME/config.json`, schema-versioned,
 * written atomically, one revision per server that increases on every change. A file that
 * cannot be used is moved aside with a timestamp and reported; it is never overwritten.
 */
import { EventEmitter } from 'node:events';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import type { ConfigProblem } from '../../app/contract/servers';
import { canonicalJson } from '../../app/audit/canonical-json';
import type { AuditSettings } from '../../app/audit/audit-settings';
import { DEFAULT_AUDIT_SETTINGS } from '../../app/audit/default-audit-settings';
import { CONFIG_SCHEMA_VERSION } from '../../app/policy/config-migrations';
import type { Guards } from '../../app/policy/guards';
import type { TelemetrySettings } from '../../app/telemetry/telemetry-settings';
import type { Config, Policy, Server } from '../../app/policy/policy-schema';
import { type FieldError, describeFieldErrors, validate } from '../../app/policy/validate';
import { type Result, err, ok } from '../../app/result';
import { LockFileHeld, withLockFile } from '../core/core-lock';
import { scriptError } from './script-error';
import { type AtomicWriteOps, realAtomicWriteOps, writeFileAtomic } from './atomic-write';
import { BUILD_SCHEMA_ID, recordValid } from './validated-config-cache';
import { CHANGE_WAIT_MS, ConfigMark, type Reloaded } from './config-mark';
import { type ServerChange, type SettingsChange, configChanges } from './config-changes';
import { type ServerSource, checkServerInput, sourceOf } from './server-input';
import { type Schemas, loadSchemas, readConfigText } from './config-text';

export type ConfigStoreError =
  | { kind: 'invalid-input'; message: string; fields: FieldError[] }
  | { kind: 'not-found'; message: string }
  | { kind: 'conflict'; message: string }
  /** The managed layer (or the global guards) forbid it; `rule` names the rule. */
  | { kind: 'policy-forbidden'; message: string; rule: string; remedy: string };

export type { Reloaded } from './config-mark';
export type { ServerChange, SettingsChange } from './config-changes';

export interface ConfigStoreOptions {
  wardenHome: string;
  now?: () => Date;
  writeOps?: AtomicWriteOps;
  /** Checks a new or changed policy against the guard layers; an error refuses the change. */
  checkPolicy?: (policy: Policy) => Promise<ConfigStoreError | undefined>;
  /** Schema identity for the record of validated bytes (default this build's; see its module). */
  schemaId?: string;
}

export class ConfigStore {
  readonly path: string;
  private config: Config = { schemaVersion: CONFIG_SCHEMA_VERSION, servers: [] };
  private readonly problems: ConfigProblem[] = [];
  private readonly events = new EventEmitter();
  private writeQueue: Promise<void> = Promise.resolve();
  /** The changes of this store, one at a time (see `exclusive`). */
  private changes: Promise<unknown> = Promise.resolve();
  /** The text of config.json as this store last read or wrote it. */
  private lastText: string | undefined;
  /** Beside config.json, the text whose change a Warden process last took on recording. */
  private readonly mark: ConfigMark;
  /**
   * What config.json held when its change was last accounted for, where the file changed while
   * no Warden process followed it (see `announceOfflineEdit`).
   */
  private offlineEdit: { before: Config; text: string } | undefined;
  private readonly now: () => Date;
  private readonly writeOps: AtomicWriteOps;
  private readonly checkPolicy: ConfigStoreOptions['checkPolicy'];
  private readonly wardenHome: string;
  private readonly schemaId: string | undefined;

  private constructor(options: ConfigStoreOptions) {
    this.wardenHome = options.wardenHome;
    this.schemaId = 'schemaId' in options ? options.schemaId : BUILD_SCHEMA_ID;
    this.path = join(options.wardenHome, 'config.json');
    this.mark = new ConfigMark(this.path);
    this.now = options.now ?? (() => new Date());
    this.writeOps = options.writeOps ?? realAtomicWriteOps;
    this.checkPolicy = options.checkPolicy;
  }

  /** Opens the store, creating `wardenHome` if needed. Never throws for a bad file. */
  static async open(options: ConfigStoreOptions): Promise<ConfigStore> {
    const store = new ConfigStore(options);
    await mkdir(options.wardenHome, { recursive: true, mode: 0o700 });
    await store.load();
    const before = await store.mark.offlineBefore(store.lastText);
    if (before && store.lastText !== undefined)
      store.offlineEdit = { before, text: store.lastText };
    return store;
  }

  /**
   * Announces, to the listeners subscribed by then, the change made to config.json while no
   * Warden process followed it (edited by hand with nothing running): each server and setting
   * that differs from the text last accounted for, as a change taken in from the file, which one
   * store of those opening records. Nothing when the file is what was last accounted for.
   */
  async announceOfflineEdit(): Promise<void> {
    const edit = this.offlineEdit;
    this.offlineEdit = undefined;
    // Taken in meanwhile (a change of this store reloads the file first), or changed again.
    if (!edit || edit.text !== this.lastText) return;
    if ((await this.mark.whoRecords(edit.text, false)) !== 'to-record') return;
    if (edit.text === this.lastText) this.announce(edit.before, 'to-record', true);
  }

  /** Problems met while loading (a file moved aside), for the UI and CLI to report. */
  getProblems(): ConfigProblem[] {
    return [...this.problems];
  }

  listServers(): Server[] {
    return this.config.servers.map((s) => structuredClone(s));
  }

  /**
   * The stored server itself, without a copy, for hot paths that only read (redaction, the tool
   * gate). Callers must not change it; every change goes through `updateServer`.
   */
  readServer(name: string): Readonly<Server> | undefined {
    return this.config.servers.find((s) => s.name === name);
  }

  /** Every stored server, without copies (read-only, as `readServer`). */
  readServers(): readonly Readonly<Server>[] {
    return this.config.servers;
  }

  getServer(name: string): Server | undefined {
    const found = this.config.servers.find((s) => s.name === name);
    return found ? structuredClone(found) : undefined;
  }

  /** Subscribes to config files moved aside after start (an unusable edit from outside). */
  onProblem(listener: (problem: ConfigProblem) => void): () => void {
    this.events.on('problem', listener);
    return () => this.events.off('problem', listener);
  }

  /**
   * Subscribes to changes of the settings that are no server's (the guards, the audit log's
   * settings, the export), made to the file from outside (the file edited by hand): a change
   * made through this store is its caller's to apply.
   */
  onSettingsReloaded(listener: (change: SettingsChange) => void): () => void {
    this.events.on('settings', listener);
    return () => this.events.off('settings', listener);
  }

  /** Subscribes to changes of one server (added, updated, removed). */
  onChange(listener: (change: ServerChange) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  /**
   * Adds a server. `acknowledged` says the user has seen its full command (they typed it, or
   * confirmed it); until then it is never started.
   */
  async addServer(
    input: ServerSource & { name: string; policy: Policy; acknowledged?: boolean },
  ): Promise<Result<Server, ConfigStoreError>> {
    return this.exclusive(async () => {
      const checked = checkServerInput(await loadSchemas(), input.name, input, input.policy);
      if (!checked.ok) return checked;
      const script = scriptError(checked.value.launch, checked.value.policy);
      if (script) return err(script);
      const forbidden = await this.checkPolicy?.(checked.value.policy);
      if (forbidden) return err(forbidden);
      if (this.config.servers.some((s) => s.name === input.name)) {
        return err({ kind: 'conflict', message: `a server named "${input.name}" already exists` });
      }
      const at = this.now().toISOString();
      const server: Server = {
        name: input.name,
        ...sourceOf(checked.value),
        policy: checked.value.policy,
        revision: 1,
        createdAt: at,
        updatedAt: at,
        acknowledged: input.acknowledged ?? false,
      };
      await this.commit({ ...this.config, servers: [...this.config.servers, server] });
      this.emit({ name: server.name, before: undefined, after: server });
      return ok(structuredClone(server));
    });
  }

  /**
   * Applies `change` to a server. A change of its launch spec or policy bumps the revision; a new
   * command must be confirmed again before it starts. With `expectedRevision`, refuses when
   * someone else changed the server in between.
   */
  async updateServer(
    name: string,
    change: (server: Server) => Partial<ServerSource> & { policy?: Policy; acknowledged?: boolean },
    expectedRevision?: number,
  ): Promise<Result<Server, ConfigStoreError>> {
    return this.exclusive(async () => {
      // Before the server is read: no other change may come between that and this one's write.
      const schemas = await loadSchemas();
      const index = this.config.servers.findIndex((s) => s.name === name);
      const before = this.config.servers[index];
      if (!before) return err({ kind: 'not-found', message: `no server named "${name}"` });
      if (expectedRevision !== undefined && expectedRevision !== before.revision) {
        return err({
          kind: 'conflict',
          message: `"${name}" changed meanwhile (revision ${before.revision}, expected ${expectedRevision}); reload and try again`,
        });
      }
      const patch = change(structuredClone(before));
      const source = {
        launch: patch.launch ?? before.launch,
        remote: patch.remote ?? before.remote,
      };
      const policy = patch.policy ?? before.policy;
      const checked = checkServerInput(schemas, name, source, policy);
      if (!checked.ok) return checked;
      // A new command or a new URL: the user confirms it again before it starts.
      const launchChanged =
        canonicalJson(checked.value.launch ?? null) !== canonicalJson(before.launch ?? null) ||
        canonicalJson(checked.value.remote ?? null) !== canonicalJson(before.remote ?? null);
      // Checked when the command or what the server sees changes, so that a network grant saved
      // to an older server's policy never fails on it.
      const sightChanged =
        launchChanged ||
        checked.value.policy.isolation !== before.policy.isolation ||
        canonicalJson(checked.value.policy.filesystem) !== canonicalJson(before.policy.filesystem);
      const script = sightChanged && scriptError(checked.value.launch, checked.value.policy);
      if (script) return err(script);
      const policyChanged = canonicalJson(checked.value.policy) !== canonicalJson(before.policy);
      const forbidden = policyChanged && (await this.checkPolicy?.(checked.value.policy));
      if (forbidden) return err(forbidden);
      const changed = launchChanged || policyChanged;
      const { launch: _launch, remote: _remote, ...rest } = before;
      const after: Server = {
        ...rest,
        ...sourceOf(checked.value),
        policy: checked.value.policy,
        acknowledged: patch.acknowledged ?? (launchChanged ? false : before.acknowledged),
        revision: changed ? before.revision + 1 : before.revision,
        updatedAt: this.now().toISOString(),
      };
      const servers = [...this.config.servers];
      servers[index] = after;
      await this.commit({ ...this.config, servers });
      this.emit({ name, before, after });
      return ok(structuredClone(after));
    });
  }

  async removeServer(name: string): Promise<Result<Server, ConfigStoreError>> {
    return this.exclusive(async () => {
      const before = this.config.servers.find((s) => s.name === name);
      if (!before) return err({ kind: 'not-found', message: `no server named "${name}"` });
      await this.commit({
        ...this.config,
        servers: this.config.servers.filter((s) => s.name !== name),
      });
      this.emit({ name, before, after: undefined });
      return ok(before);
    });
  }

  /** The audit log's settings (retention), the defaults where config.json has none. */
  auditSettings(): AuditSettings {
    return structuredClone(this.config.audit ?? DEFAULT_AUDIT_SETTINGS);
  }

  /** Saves the audit log's settings (the caller applies them). */
  setAuditSettings(input: unknown): Promise<Result<AuditSettings, ConfigStoreError>> {
    return this.exclusive(() => this.setSection('audit', (s) => s.auditSettingsSchema, input));
  }

  /** The global part (guards every server inherits) as stored; undefined means the defaults. */
  guards(): Guards | undefined {
    return this.config.guards ? structuredClone(this.config.guards) : undefined;
  }

  /** The global part as stored, without a copy (read-only; a new object after each change). */
  readGuards(): Readonly<Guards> | undefined {
    return this.config.guards;
  }

  /** Saves the global part after validating it. */
  setGuards(input: unknown): Promise<Result<Guards, ConfigStoreError>> {
    return this.exclusive(() => this.setSection('guards', (s) => s.guardsSchema, input));
  }

  /** Where the audit log is exported as OpenTelemetry; undefined means nowhere. */
  telemetry(): TelemetrySettings | undefined {
    return this.config.telemetry ? structuredClone(this.config.telemetry) : undefined;
  }

  /** Saves the telemetry export settings after validating them; `undefined` turns it off. */
  async setTelemetry(
    input: unknown,
  ): Promise<Result<TelemetrySettings | undefined, ConfigStoreError>> {
    return this.exclusive<TelemetrySettings | undefined>(async () => {
      if (input !== undefined)
        return this.setSection('telemetry', (s) => s.telemetrySettingsSchema, input);
      const { telemetry: _off, ...rest } = this.config;
      await this.commit(rest);
      return ok(undefined);
    });
  }

  /** Validates `input` as config section `key` (field errors named under it), then saves it. */
  private async setSection<
    K extends 'audit' | 'guards' | 'telemetry',
    T extends NonNullable<Config[K]>,
  >(
    key: K,
    schemaOf: (schemas: Schemas) => z.ZodType<T>,
    input: unknown,
  ): Promise<Result<T, ConfigStoreError>> {
    const checked = validate(schemaOf(await loadSchemas()), input);
    if (!checked.ok) {
      const fields = checked.error.map((e) => ({ ...e, field: `${key}.${e.field}` }));
      return err({ kind: 'invalid-input', message: describeFieldErrors(fields), fields });
    }
    await this.commit({ ...this.config, [key]: checked.value });
    return ok(structuredClone(checked.value));
  }

  /**
   * Runs `change` alone across this user's Warden processes (the app, `warden serve`, each
   * standalone `warden connect` pinning a server's tools, the CLI): under `config.json.lock`, after
   * taking in what another process wrote meanwhile, so that no change writes this store's older
   * copy back over a newer one (a server removed, a grant withdrawn, coming back).
   */
  private exclusive<T>(
    change: () => Promise<Result<T, ConfigStoreError>>,
  ): Promise<Result<T, ConfigStoreError>> {
    const run = async (): Promise<Result<T, ConfigStoreError>> => {
      try {
        return await withLockFile(
          this.path,
          'a change to config.json',
          async () => {
            await this.reloadIfChanged(true);
            return change();
          },
          CHANGE_WAIT_MS,
        );
      } catch (error) {
        if (error instanceof LockFileHeld) return err({ kind: 'conflict', message: error.message });
        throw error;
      }
    };
    const next = this.changes.then(run, run);
    this.changes = next.catch(() => undefined);
    return next;
  }

  /** Waits for every pending write. */
  async flush(): Promise<void> {
    await this.writeQueue;
  }

  private emit(change: ServerChange): void {
    this.events.emit('change', change);
  }

  /** Swaps the in-memory config and queues its durable write, in order. */
  private async commit(next: Config): Promise<void> {
    this.config = next;
    const text = `${JSON.stringify(next, null, 2)}\n`;
    this.lastText = text;
    this.mark.release();
    const write = this.writeQueue.then(async () => {
      await this.mark.write(text, this.writeOps);
      try {
        await writeFileAtomic(this.path, text, this.writeOps);
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
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await this.loadText(text);
  }

  private async loadText(text: string): Promise<void> {
    const read = await readConfigText(text, this.wardenHome, this.schemaId);
    if (read.kind === 'problem') {
      await this.moveAside(read.problem, read.message);
      return;
    }
    this.config = read.config;
    this.lastText = text;
    const id = this.schemaId;
    if (read.migrated) await this.commit(this.config);
    else if (id && read.recordable)
      this.writeQueue = this.writeQueue.then(() => recordValid(this.wardenHome, text, id));
  }

  /**
   * Takes in a change another process made to config.json (`warden servers add` while the app
   * runs): each server that changed is announced as if changed here. A file that became unusable
   * is moved aside and reported, and this store's own copy is written back.
   */
  async reloadIfChanged(underLock = false): Promise<void> {
    const queue = this.writeQueue;
    await queue;
    const expected = this.lastText;
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return;
    }
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
    const before = this.config;
    const problemsBefore = this.problems.length;
    this.config = { schemaVersion: CONFIG_SCHEMA_VERSION, servers: [] };
    await this.loadText(text);
    if (this.problems.length > problemsBefore) {
      // Unusable: the file was moved aside; keep what this store had and write it back.
      this.config = before;
      await this.commit(before);
      return;
    }
    this.announce(before, reloaded);
  }

  /** Announces each server and setting that differs between `before` and this store's config. */
  private announce(before: Config, reloaded: Reloaded, atStart = false): void {
    const changes = configChanges(before, this.config, reloaded, atStart);
    for (const change of changes.servers) this.emit(change);
    for (const change of changes.settings) this.events.emit('settings', change);
  }

  private async moveAside(kind: ConfigProblem['kind'], message: string): Promise<void> {
    const at = this.now();
    const stamp = at.toISOString().replace(/[:.]/g, '-');
    const movedTo = `${this.path}.${kind}-${stamp}`;
    await rename(this.path, movedTo);
    const problem: ConfigProblem = { kind, message, movedTo, at: at.toISOString() };
    this.problems.push(problem);
    this.events.emit('problem', problem);
  }
}
