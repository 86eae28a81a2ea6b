/**
 * Schema migrations for config.json. Each step takes the document of version N to N+1; the
 * store runs them in order on load and writes the result back with the current version.
 */

/** The version of config.json this build writes (no schema here: the launch path reads it). */
export const CONFIG_SCHEMA_VERSION = 1;

type Migration = (doc: Record<string, unknown>) => Record<string, unknown>;

/** Index i migrates version i to i+1. Version 0 is a document written before versioning. */
const migrations: Migration[] = [
  (doc) => ({ ...doc, schemaVersion: 1, servers: Array.isArray(doc.servers) ? doc.servers : [] }),
];

export type MigrationOutcome =
  | { kind: 'current'; doc: Record<string, unknown> }
  | { kind: 'migrated'; from: number; doc: Record<string, unknown> }
  | { kind: 'newer-schema'; version: number }
  | { kind: 'not-an-object' };

/** Brings a parsed config document to the current schema version, if it can. */
export function migrateConfig(raw: unknown): MigrationOutcome {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { kind: 'not-an-object' };
  let doc = raw as Record<string, unknown>;
  const version = typeof doc.schemaVersion === 'number' ? doc.schemaVersion : 0;
  if (version > CONFIG_SCHEMA_VERSION) return { kind: 'newer-schema', version };
  if (version === CONFIG_SCHEMA_VERSION) return { kind: 'current', doc };
  for (let v = version; v < CONFIG_SCHEMA_VERSION; v++) {
    const step = migrations[v];
    if (!step) return { kind: 'newer-schema', version };
    doc = step(doc);
  }
  return { kind: 'migrated', from: version, doc };
}
