/**
 * What differs between two configs, as the store announces it: each server added, changed or
 * removed, and each section that is no server's (the guards, the audit log's settings, the
 * export), with who records the change when it was taken in from config.json.
 */
import { canonicalJson } from '../../app/audit/canonical-json';
import type { Config, Server } from '../../app/policy/policy-schema';
import type { Reloaded } from './config-mark';

export interface ServerChange {
  name: string;
  before: Server | undefined;
  after: Server | undefined;
  /**
   * Taken in from the file: a change already recorded in the audit log (by the core of the Warden
   * process that made it, or of another that took in the same hand edit first) or one this
   * store's core records; absent for a change made through this store.
   */
  reloaded?: Reloaded;
}

/** The sections of config.json that are no server's. */
const SETTINGS = ['guards', 'audit', 'telemetry'] as const;
type SettingsSection = (typeof SETTINGS)[number];

/**
 * One of them changed: as it was and as it is (undefined where absent), and by whom; `atStart`
 * when it was made while no Warden process followed the file, announced as a store opened (the
 * opening core applies the settings as they are anyway).
 */
export type SettingsChange = {
  [K in SettingsSection]: {
    section: K;
    before: Config[K];
    after: Config[K];
    reloaded: Reloaded;
    atStart?: true;
  };
}[SettingsSection];

/** Each server and setting that differs between `before` and `after`, taken in from the file. */
export function configChanges(
  before: Config,
  after: Config,
  reloaded: Reloaded,
  atStart: boolean,
): { servers: ServerChange[]; settings: SettingsChange[] } {
  const servers: ServerChange[] = [];
  const names = new Set([...before.servers, ...after.servers].map((s) => s.name));
  for (const name of names) {
    const was = before.servers.find((s) => s.name === name);
    const now = after.servers.find((s) => s.name === name);
    if (canonicalJson(was) !== canonicalJson(now))
      servers.push({ name, before: was, after: now, reloaded });
  }
  const settings: SettingsChange[] = [];
  for (const section of SETTINGS) {
    if (canonicalJson(before[section]) === canonicalJson(after[section])) continue;
    const change = { section, before: before[section], after: after[section], reloaded };
    settings.push((atStart ? { ...change, atStart: true } : change) as SettingsChange);
  }
  return { servers, settings };
}
