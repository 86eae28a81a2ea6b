/**
 * The config store: servers and their policies in `$WARDEN_HOME/config.json`, schema-versioned,
 * written atomically, one revision per server that increases on every change. A file that
 * cannot be used is moved aside with a timestamp and reported; it is never overwritten. Here,
 * the operations, one at a time across processes, and their events; the file is kept in step by
 * config-file.ts, and a server's change is checked and built by server-edits.ts.
 */
import { EventEmitter } from 'node:events';
import type { z } from 'zod';
import type { ConfigProblem } from '../../app/contract/servers';
import type { AuditSettings } from '../../app/audit/audit-settings';
import { DEFAULT_AUDIT_SETTINGS } from '../../app/audit/default-audit-settings';
import type { Guards } from '../../app/policy/guards';
import type { TelemetrySettings } from '../../app/telemetry/telemetry-settings';
import type { Config, Policy, Server } from '../../app/policy/policy-schema';
import { type FieldError, describeFieldErrors, validate } from '../../app/policy/validate';
import { type Result, err, ok } from '../../app/result';
import { LockFileHeld, withLockFile } from '../core/core-lock';
import { type AtomicWriteOps, realAtomicWriteOps } from './atomic-write';
import { BUILD_SCHEMA_ID } from './validated-config-cache';
import { CHANGE_WAIT_MS, type Reloaded } from './config-mark';
import { type ServerChange, type SettingsChange, configChanges } from './config-changes';
import { type Schemas, loadSchemas } from './config-text';
import { ConfigFile } from './config-file';
import { storedRevision } from './stored-revision';
import {
  type NewServer,
  type ServerPatch,
  checkNewServer,
  checkPatch,
  newServer,
  patchedServer,
} from './server-edits';

export type ConfigStoreError =
  | { kind: 'invalid-input'; message: string; fields: FieldError[] }
  | { kind: 'not-found'; message: string }
  | { kind: 'conflict'; message: string }
  /** The managed layer (or the global guards) forbid it; `rule` names the rule. */
  | { kind: 'policy-forbidden'; message: string; rule: string; remedy: string };

/** The refusal of a save made from a copy of `what` older than the one stored (`where` changed). */
function staleCopy(what: string, where: string): ConfigStoreError {
  return {
    kind: 'conflict',
    message: `${what} changed since it was read (${where}); read it again and make the change once more`,
  };
}

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
  /** config.json and this store's copy of it, which every change below swaps and writes. */
  private readonly file: ConfigFile;
  private readonly events = new EventEmitter();
  /** The changes of this store, one at a time (see `exclusive`). */
  private changes: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  private readonly checkPolicy: ConfigStoreOptions['checkPolicy'];

  private constructor(options: ConfigStoreOptions) {
    this.now = options.now ?? (() => new Date());
    this.checkPolicy = options.checkPolicy;
    this.file = new ConfigFile({
      wardenHome: options.wardenHome,
      now: this.now,
      writeOps: options.writeOps ?? realAtomicWriteOps,
      schemaId: 'schemaId' in options ? options.schemaId : BUILD_SCHEMA_ID,
      onProblem: (problem) => this.events.emit('problem', problem),
      onTakenIn: (before, reloaded, atStart) => this.announce(before, reloaded, atStart),
    });
    this.path = this.file.path;
  }

  /**
   * Opens the store, creating `wardenHome` if needed. Never throws for a file that does not read
   * as a config; throws StateFolderRefused for a folder or file that may not be this user's alone.
   */
  static async open(options: ConfigStoreOptions): Promise<ConfigStore> {
    const store = new ConfigStore(options);
    await store.file.open();
    return store;
  }

  /** The config as this store holds it (see `ConfigFile.config`). */
  private get config(): Config {
    return this.file.config;
  }

  /**
   * Announces, to the listeners subscribed by then, the change made to config.json while no
   * Warden process followed it (edited by hand with nothing running): each server and setting
   * that differs from the text last accounted for, as a change taken in from the file, which one
   * store of those opening records. Nothing when the file is what was last accounted for.
   */
  announceOfflineEdit(): Promise<void> {
    return this.file.takeInOfflineEdit();
  }

  /** Problems met while loading (a file moved aside), for the UI and CLI to report. */
  getProblems(): ConfigProblem[] {
    return [...this.file.problems];
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
  async addServer(input: NewServer): Promise<Result<Server, ConfigStoreError>> {
    return this.exclusive(async () => {
      const checked = checkNewServer(await loadSchemas(), input);
      if (!checked.ok) return checked;
      const forbidden = await this.checkPolicy?.(checked.value.policy);
      if (forbidden) return err(forbidden);
      if (this.config.servers.some((s) => s.name === input.name)) {
        return err({ kind: 'conflict', message: `a server named "${input.name}" already exists` });
      }
      const server = newServer(input, checked.value, this.now().toISOString());
      await this.file.commit({ ...this.config, servers: [...this.config.servers, server] });
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
    change: (server: Server) => ServerPatch,
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
      const checked = checkPatch(schemas, before, patch);
      if (!checked.ok) return checked;
      const { policy } = checked.value.checked;
      const forbidden = checked.value.policyChanged && (await this.checkPolicy?.(policy));
      if (forbidden) return err(forbidden);
      const after = patchedServer(before, patch, checked.value, this.now().toISOString());
      const servers = [...this.config.servers];
      servers[index] = after;
      await this.file.commit({ ...this.config, servers });
      this.emit({ name, before, after });
      return ok(structuredClone(after));
    });
  }

  async removeServer(name: string): Promise<Result<Server, ConfigStoreError>> {
    return this.exclusive(async () => {
      const before = this.config.servers.find((s) => s.name === name);
      if (!before) return err({ kind: 'not-found', message: `no server named "${name}"` });
      await this.file.commit({
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

  /** The revision of the audit log's settings as stored (see `setAuditSettings`). */
  auditSettingsRevision(): string {
    return storedRevision(this.config.audit);
  }

  /**
   * Saves the audit log's settings (the caller applies them). With `expectedRevision`, refuses
   * when the stored settings are no longer the ones of that revision.
   */
  setAuditSettings(
    input: unknown,
    expectedRevision?: string,
  ): Promise<Result<AuditSettings, ConfigStoreError>> {
    return this.exclusive(async () => {
      if (expectedRevision !== undefined && expectedRevision !== storedRevision(this.config.audit))
        return err(staleCopy('the audit retention', 'in another window or in config.json'));
      return this.setSection('audit', (s) => s.auditSettingsSchema, input);
    });
  }

  /** The global part (guards every server inherits) as stored; undefined means the defaults. */
  guards(): Guards | undefined {
    return this.config.guards ? structuredClone(this.config.guards) : undefined;
  }

  /** The global part as stored, without a copy (read-only; a new object after each change). */
  readGuards(): Readonly<Guards> | undefined {
    return this.config.guards;
  }

  /**
   * Saves the global part after validating it. With `expectedRevision`, refuses when the stored
   * part is no longer the one of that revision (someone else changed it in between).
   */
  setGuards(input: unknown, expectedRevision?: string): Promise<Result<Guards, ConfigStoreError>> {
    return this.exclusive(async () => {
      if (expectedRevision !== undefined && expectedRevision !== storedRevision(this.config.guards))
        return err(
          staleCopy(
            'the global policy',
            'in another window, by the command line or in config.json',
          ),
        );
      return this.setSection('guards', (s) => s.guardsSchema, input);
    });
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
      await this.file.commit(rest);
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
    await this.file.commit({ ...this.config, [key]: checked.value });
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
  flush(): Promise<void> {
    return this.file.flush();
  }

  private emit(change: ServerChange): void {
    this.events.emit('change', change);
  }

  /**
   * Takes in a change another process made to config.json (`warden servers add` while the app
   * runs): each server that changed is announced as if changed here. A file that became unusable
   * is moved aside and reported, and this store's own copy is written back.
   */
  reloadIfChanged(underLock = false): Promise<void> {
    return this.file.reloadIfChanged(underLock);
  }

  /** Announces each server and setting that differs between `before` and this store's config. */
  private announce(before: Config, reloaded: Reloaded, atStart = false): void {
    const changes = configChanges(before, this.config, reloaded, atStart);
    for (const change of changes.servers) this.emit(change);
    for (const change of changes.settings) this.events.emit('settings', change);
  }
}
