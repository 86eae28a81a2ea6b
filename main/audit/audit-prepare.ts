/**
 * An audit event between `append` and the database. `append` only takes a snapshot: the event's
 * JSON text (so that later changes to the caller's objects cannot alter the record) and the
 * secrets to strip from it, both fixed at that moment. Turning snapshots into rows (redaction,
 * summary text, canonical body) is the work of whoever writes the batch, the writer thread when
 * there is one, so that none of it runs on the thread that relays calls; it always happens before
 * a row is hashed, stored or handed to a listener, so no secret reaches the disk or a reader.
 */
import type { AuditEvent, AuditEventInput } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import { canonicalJson } from '../../app/audit/canonical-json';
import { type AuditSecret, redactSecrets } from '../../app/audit/redact';
import { wellFormed } from '../../app/audit/well-formed';
import type { Pending } from './audit-writer';

/** An event as appended: its JSON text and the secrets it must be written without. */
export interface Snapshot {
  json: string;
  secrets: readonly AuditSecret[];
}

/** Snapshots as the writer thread receives them: each distinct secret set sent once. */
export interface SnapshotBatch {
  json: string[];
  sets: (readonly AuditSecret[])[];
  /** The index in `sets` of each event's secrets. */
  setOf: number[];
}

/** Fixes `event` as it is now (JSON.stringify's view; canonical JSON where that throws). */
export function snapshot(event: AuditEvent, secrets: readonly AuditSecret[]): Snapshot {
  let json: string | undefined;
  try {
    json = JSON.stringify(event);
  } catch {
    // A bigint, a cycle, or nesting too deep for the call stack: canonicalJson writes them all.
  }
  return { json: json ?? canonicalJson(event) ?? '{}', secrets };
}

/**
 * The snapshot of `{ ...input, ts }`, without copying the event first: its JSON with `ts` put in
 * front (the writer sorts the keys before anything is stored or hashed, so the order is not
 * kept). An input that brings its own `ts`, or that JSON.stringify cannot write, is copied.
 */
export function snapshotAt(
  input: AuditEventInput,
  ts: string,
  secrets: readonly AuditSecret[],
): Snapshot {
  if (input.ts === undefined) {
    let json: string | undefined;
    try {
      json = JSON.stringify(input);
    } catch {
      // Written below by canonicalJson, as `snapshot` does.
    }
    if (json?.startsWith('{')) {
      const stamp = `{"ts":${JSON.stringify(ts)}`;
      return { json: json === '{}' ? `${stamp}}` : `${stamp},${json.slice(1)}`, secrets };
    }
  }
  return snapshot({ ...input, ts }, secrets);
}

/** An event ready for the writer: its summary text and canonical body, computed once. */
export function pending(event: AuditEvent): Pending {
  // The columns stored as text are hashed as stored (well-formed.ts); the body is JSON, whose
  // escapes are ASCII.
  return {
    ts: stored(event.ts),
    kind: stored(event.kind),
    server: stored(event.server ?? null),
    instance: stored(event.instance ?? null),
    outcome: stored(event.outcome),
    text: stored(summary(event)),
    body: canonicalJson(event) ?? '{}',
  };
}

/** A column's value as SQLite stores it: a string well formed, anything else as it is. */
const stored = <T>(value: T): T => (typeof value === 'string' ? wellFormed(value) : value) as T;

/**
 * The event's summary line. An event whose fields do not have the shape its kind promises still
 * gets a row (its kind and outcome as the summary): a batch that could never be written would
 * hold back every event behind it.
 */
function summary(event: AuditEvent): string {
  try {
    return auditEventText(event);
  } catch {
    return `${String(event.kind)} ${String(event.outcome)}: (no summary)`;
  }
}

/** The row of a snapshot: redacted first, then summarized and serialized. */
export function prepare(json: string, secrets: readonly AuditSecret[]): Pending {
  const event = JSON.parse(json) as AuditEvent;
  return pending(secrets.length > 0 ? redactSecrets(event, secrets) : event);
}

/** Packs snapshots for the writer thread; secret sets are told apart by identity. */
export function toBatch(snapshots: readonly Snapshot[]): SnapshotBatch {
  const index = new Map<readonly AuditSecret[], number>();
  const batch: SnapshotBatch = { json: [], sets: [], setOf: [] };
  for (const s of snapshots) {
    let at = index.get(s.secrets);
    if (at === undefined) {
      at = batch.sets.push(s.secrets) - 1;
      index.set(s.secrets, at);
    }
    batch.json.push(s.json);
    batch.setOf.push(at);
  }
  return batch;
}

/** The rows of a packed batch, in order. */
export function prepareBatch(batch: SnapshotBatch): Pending[] {
  return batch.json.map((json, i) => prepare(json, batch.sets[batch.setOf[i]!] ?? []));
}
