import { chmod, chown, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { configSchema } from '../../app/policy/policy-schema';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ConfigStore } from './config-store';
import { readRecordedConfig, validatedRecordPath } from './validated-config-cache';

let home = '';
tempDirEach('warden-validated-', (d) => (home = d));

const SCHEMA = 'schema-a';
const launch = { command: '/bin/true', args: [] };
const configPath = () => join(home, 'config.json');

/** Counts how often the whole config file goes through the schema. */
const safeParse = configSchema.safeParse.bind(configSchema);
const parse = vi.spyOn(configSchema, 'safeParse').mockImplementation((d, p) => safeParse(d, p));
const fullValidations = () => parse.mock.calls.length;

/** A config with one server, opened once more so that its bytes are recorded as valid. */
async function recordedConfig(): Promise<void> {
  const store = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
  await store.addServer({ name: 'fs', launch, policy: defaultPolicy(), acknowledged: true });
  await store.flush();
  await (await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA })).flush();
  parse.mockClear();
}

beforeEach(() => parse.mockClear());

/** Edits config.json behind the store's back, then opens it again. */
async function editedAndOpened(from: string, to: string): Promise<ConfigStore> {
  const text = await readFile(configPath(), 'utf8');
  await writeFile(configPath(), text.replace(from, to));
  expect(readRecordedConfig(home, SCHEMA)).toBeUndefined();
  return ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
}

describe('record of a validated config', () => {
  it('opens bytes recorded as valid without validating them again', async () => {
    await recordedConfig();
    const store = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
    expect(fullValidations()).toBe(0);
    expect(store.getServer('fs')?.launch?.command).toBe('/bin/true');
    expect(readRecordedConfig(home, SCHEMA)).toEqual(
      JSON.parse(await readFile(configPath(), 'utf8')),
    );
  });

  it('validates a changed config again, and records the new bytes', async () => {
    await recordedConfig();
    const store = await editedAndOpened('"/bin/true"', '"/bin/false"');
    await store.flush();
    expect(fullValidations()).toBe(1);
    expect(store.getServer('fs')?.launch?.command).toBe('/bin/false');
    expect(readRecordedConfig(home, SCHEMA)).toBeDefined();
  });

  it('refuses a config tampered into an invalid one, the record of the old bytes notwithstanding', async () => {
    await recordedConfig();
    const store = await editedAndOpened('"isolation": "sandbox"', '"isolation": "none"');
    expect(fullValidations()).toBe(1);
    expect(store.getServer('fs')).toBeUndefined();
    expect(store.getProblems().map((p) => p.kind)).toEqual(['invalid']);
  });

  it('does not take a record from another build', async () => {
    await recordedConfig();
    expect(readRecordedConfig(home, 'schema-b')).toBeUndefined();
    await (await ConfigStore.open({ wardenHome: home, schemaId: 'schema-b' })).flush();
    expect(fullValidations()).toBe(1);
  });

  it('does not trust a record others may read or write, nor a symlink', async () => {
    await recordedConfig();
    const record = validatedRecordPath(home);
    await chmod(record, 0o644);
    expect(readRecordedConfig(home, SCHEMA)).toBeUndefined();
    await (await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA })).flush();
    expect(fullValidations()).toBe(1);

    await chmod(record, 0o600);
    await chmod(join(home, 'cache'), 0o777);
    expect(readRecordedConfig(home, SCHEMA)).toBeUndefined();
    await chmod(join(home, 'cache'), 0o700);
    expect(readRecordedConfig(home, SCHEMA)).toBeDefined();

    const copy = join(home, 'copy.json');
    await writeFile(copy, await readFile(record), { mode: 0o600 });
    await rm(record);
    await symlink(copy, record);
    expect(readRecordedConfig(home, SCHEMA)).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)(
    'does not trust a record owned by another user (needs root to chown; skipped otherwise)',
    async () => {
      await recordedConfig();
      await chown(validatedRecordPath(home), 65534, 65534);
      expect(readRecordedConfig(home, SCHEMA)).toBeUndefined();
      await (await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA })).flush();
      expect(fullValidations()).toBe(1);
    },
  );

  it('records nothing without a schema identity (code run unbuilt)', async () => {
    const store = await ConfigStore.open({ wardenHome: home, schemaId: undefined });
    await store.addServer({ name: 'fs', launch, policy: defaultPolicy() });
    await (await ConfigStore.open({ wardenHome: home, schemaId: undefined })).flush();
    expect(readRecordedConfig(home, SCHEMA)).toBeUndefined();
    await expect(readFile(validatedRecordPath(home))).rejects.toThrow();
  });
});
