/**
 * A record that the exact bytes of config.json passed validation by this build's schemas, so
 * that a command on the path to a first answer (`warden connect`, `warden servers list`) can use
 * the file without constructing the schemas again. The record holds no config, only the SHA-256
 * of the bytes and the schema identity: what is used is always the file itself, parsed again.
 * Bytes that differ by one character, another build's schemas, or a record that is not this
 * user's private file (owner, mode, a symlink) are a miss, and the store validates in full.
 *
 * Trust: the record sits in the state folder beside config.json, which only this user can write;
 * whoever could forge it could as well write a valid config with the same effect. Launches are
 * checked against the managed layer at launch, whatever the record says.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write';

/** Replaced at build time by a digest of the schema sources (scripts/build.mjs). */
declare const __WARDEN_SCHEMA_ID__: string | undefined;

/** This build's schema identity, or undefined (tests, unbuilt code): then nothing is cached. */
export const BUILD_SCHEMA_ID: string | undefined =
  typeof __WARDEN_SCHEMA_ID__ === 'string' ? __WARDEN_SCHEMA_ID__ : undefined;

const FORMAT = 1;

/** Where the record of `wardenHome` lives. */
export function validatedRecordPath(wardenHome: string): string {
  return join(wardenHome, 'cache', 'config-validated.json');
}

/** The SHA-256 of config.json's bytes, as the record keys them. */
export function configDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Whether `path` is a regular file or folder of this user that no one else may read or write. */
export function isPrivate(path: string, directory: boolean): boolean {
  try {
    const info = lstatSync(path);
    if (directory ? !info.isDirectory() : !info.isFile()) return false;
    if (typeof process.getuid === 'function' && info.uid !== process.getuid()) return false;
    return (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Whether `text` is recorded as validated under `schemaId`; false on any doubt. */
export function isRecordedValid(wardenHome: string, text: string, schemaId: string): boolean {
  const path = validatedRecordPath(wardenHome);
  if (!isPrivate(join(wardenHome, 'cache'), true) || !isPrivate(path, false)) return false;
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return (
      record.format === FORMAT && record.schema === schemaId && record.sha256 === configDigest(text)
    );
  } catch {
    return false;
  }
}

/**
 * config.json of `wardenHome` parsed, when its bytes are recorded as validated under `schemaId`;
 * undefined when the file is missing or anything does not match (the caller validates in full).
 */
export function readRecordedConfig(
  wardenHome: string,
  schemaId: string | undefined = BUILD_SCHEMA_ID,
): unknown {
  if (schemaId === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(join(wardenHome, 'config.json'), 'utf8');
  } catch {
    return undefined;
  }
  return isRecordedValid(wardenHome, text, schemaId) ? JSON.parse(text) : undefined;
}

/** Records that `text` passed validation under `schemaId` (best effort: a miss costs time only). */
export async function recordValid(wardenHome: string, text: string, schemaId: string) {
  const dir = join(wardenHome, 'cache');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivate(dir, true)) return;
    const body = `${JSON.stringify({ format: FORMAT, schema: schemaId, sha256: configDigest(text) })}\n`;
    await writeFileAtomic(validatedRecordPath(wardenHome), body);
  } catch {
    // Not recorded: the next start validates again.
  }
}
