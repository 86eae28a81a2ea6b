/**
 * The settings of config.json that are no server's (the guards, the audit log's settings, where
 * the log is exported), changed from outside while a core runs — the file edited by hand. Such a
 * change is recorded in the log as the same change made through the core is, and applied at once:
 * the export restarted, the retention run; the guards need nothing more, every launch reads them.
 * A change another Warden process made (the command line through a core of its own) is applied
 * but not recorded again: that core recorded it.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { AuditSettings } from '../../app/audit/audit-settings';
import type { AuditSettingsView } from '../../app/contract/audit-settings';
import { DEFAULT_AUDIT_SETTINGS } from '../../app/audit/default-audit-settings';
import { type Guards, globalGuards } from '../../app/policy/guards';
import { changedPaths } from '../../app/policy/policy-diff';
import type { ConfigStore, SettingsChange } from '../config/config-store';
import type { TelemetryControl } from '../telemetry/telemetry';

/**
 * The row of a change of a setting that is no server's: a policy change of every server; `via`
 * `file` when it was made to config.json outside Warden.
 */
export function settingChanged(changed: string[], via?: 'file'): AuditEventInput {
  return {
    kind: 'policy.changed',
    outcome: 'info',
    revisionBefore: 0,
    revisionAfter: 0,
    changed,
    ...(via ? { via } : {}),
  };
}

/** The paths of the guards that changed, each default spelled out so that none is missed. */
export function guardsChanged(before: Guards | undefined, after: Guards | undefined): string[] {
  return changedPaths({ guards: globalGuards(before) }, { guards: globalGuards(after) });
}

/** The paths of the audit log's settings that changed, each default spelled out. */
export function auditSettingsChanged(
  before: AuditSettings | undefined,
  after: AuditSettings | undefined,
): string[] {
  const whole = (a: AuditSettings | undefined) => ({ ...DEFAULT_AUDIT_SETTINGS, ...a });
  return changedPaths({ audit: whole(before) }, { audit: whole(after) });
}

/** The audit log's settings as stored (defaults filled in) and their revision. */
export function auditSettingsView(config: ConfigStore): AuditSettingsView {
  return { ...config.auditSettings(), revision: config.auditSettingsRevision() };
}

export interface SettingsEditDeps {
  record(event: AuditEventInput): void;
  /** Writes what the log holds (and hands it to the export). */
  flush(): Promise<void>;
  telemetry: TelemetryControl;
  applyRetention(): void;
}

/**
 * Records and applies `change`; one made while no core followed the file is only recorded (the
 * core opening applies the settings as they are).
 */
export async function takeSettingsEdit(change: SettingsChange, d: SettingsEditDeps): Promise<void> {
  // Recorded by the core of the Warden process that made it, or took the hand edit in first.
  const record = (changed: string[]) => {
    if (change.reloaded === 'to-record' && changed.length > 0)
      d.record(settingChanged(changed, 'file'));
  };
  if (change.section === 'guards') {
    record(guardsChanged(change.before, change.after));
  } else if (change.section === 'audit') {
    record(auditSettingsChanged(change.before, change.after));
    if (!change.atStart) d.applyRetention();
  } else {
    // As `telemetry.set` and `telemetry.off` record it: the endpoint, the headers, or all of it.
    record(changedPaths({ telemetry: change.before }, { telemetry: change.after }, '', 2));
    if (change.atStart) return;
    // Turned off: the row saying so is the last one the export sends.
    if (!change.after) await d.flush();
    d.telemetry.apply(change.after);
  }
}
