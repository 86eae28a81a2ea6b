/**
 * config.json's text read as a config: parsed, migrated to this build's schema version and
 * validated, or the problem that has the file moved aside. The schemas are loaded once, when
 * something is first validated (see config-schemas.ts); bytes recorded as passing this build's
 * schemas unchanged are not validated again.
 */
import { canonicalJson } from '../../app/audit/canonical-json';
import type { ConfigProblem } from '../../app/contract/servers';
import { CONFIG_SCHEMA_VERSION, migrateConfig } from '../../app/policy/config-migrations';
import type { Config } from '../../app/policy/policy-schema';
import { describeFieldErrors, validate } from '../../app/policy/validate';
import { ok } from '../../app/result';
import { isRecordedValid } from './validated-config-cache';

export type Schemas = typeof import('./config-schemas');
let schemas: Schemas | undefined;
let schemasLoading: Promise<Schemas> | undefined;
/** The schemas, loaded at the first call. */
export const loadSchemas = (): Promise<Schemas> =>
  (schemasLoading ??= import('./config-schemas').then((m) => (schemas = m)));

export type ConfigRead =
  | {
      kind: 'config';
      config: Config;
      /** Migrated from an older schema version: to be written back as it now is. */
      migrated: boolean;
      /** Validated now, and unchanged by it: its bytes may be recorded as valid. */
      recordable: boolean;
    }
  | { kind: 'problem'; problem: ConfigProblem['kind']; message: string };

/** Reads `text` as config.json; `schemaId` names this build's schemas for the valid-bytes record. */
export async function readConfigText(
  text: string,
  wardenHome: string,
  schemaId: string | undefined,
): Promise<ConfigRead> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const message = `config.json is not valid JSON: ${(error as Error).message}`;
    return { kind: 'problem', problem: 'corrupt', message };
  }
  const migrated = migrateConfig(raw);
  if (migrated.kind === 'not-an-object')
    return {
      kind: 'problem',
      problem: 'invalid',
      message: 'config.json does not hold a JSON object',
    };
  if (migrated.kind === 'newer-schema')
    return {
      kind: 'problem',
      problem: 'newer-schema',
      message: `config.json has schema version ${migrated.version}, newer than this Warden understands (${CONFIG_SCHEMA_VERSION}); update Warden`,
    };
  const recorded =
    migrated.kind === 'current' && schemaId && isRecordedValid(wardenHome, text, schemaId);
  const parsed = recorded
    ? ok(migrated.doc as Config)
    : validate((schemas ?? (await loadSchemas())).configSchema, migrated.doc);
  if (!parsed.ok)
    return {
      kind: 'problem',
      problem: 'invalid',
      message: `config.json failed validation: ${describeFieldErrors(parsed.error)}`,
    };
  return {
    kind: 'config',
    config: parsed.value,
    migrated: migrated.kind === 'migrated',
    recordable:
      migrated.kind === 'current' &&
      !recorded &&
      canonicalJson(parsed.value) === canonicalJson(migrated.doc),
  };
}
