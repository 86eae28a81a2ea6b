/**
 * The user's npm settings that a sandboxed npx needs but cannot read (npm 12's `allow-scripts`):
 * read on the host from their npm user config, only the settings the presets name.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LocationContext } from './client-locations';
import { builtinCatalogue } from './clients-context';
import { npmUserConfigPath, npmUserSettings, npmrcSettings } from './npm-user-settings';

const wanted = new Set(['allow-scripts']);
const read = (text: string, env: Record<string, string> = {}) =>
  npmrcSettings(text, wanted, env)['allow-scripts'];

describe('npmrcSettings', () => {
  it('reads a setting as npm does: plain, listed, quoted, with its comment cut', () => {
    expect(read('allow-scripts=sharp,better-sqlite3\n')).toBe('sharp,better-sqlite3');
    expect(read('allow-scripts[]=sharp\r\nallow-scripts[]=canvas@2.11.2\n')).toBe(
      'sharp,canvas@2.11.2',
    );
    expect(read('allow-scripts = "sharp"')).toBe('sharp');
    expect(read("allow-scripts='a;b'")).toBe('a;b');
    expect(read('allow-scripts=sharp ; approved in May\n')).toBe('sharp');
    expect(read('; allow-scripts=commented\n# allow-scripts=too\n')).toBeUndefined();
    // The last line wins, as in npm.
    expect(read('allow-scripts=a\nallow-scripts=b\n')).toBe('b');
  });

  it('replaces ${NAME} from the environment, and leaves out a setting npm could not read', () => {
    expect(read('allow-scripts=${APPROVED}', { APPROVED: 'sharp' })).toBe('sharp');
    expect(read('allow-scripts=sharp${MORE?}', {})).toBe('sharp');
    expect(read('allow-scripts=${MISSING}')).toBeUndefined();
    expect(read('allow-scripts[]=a\nallow-scripts[]=${MISSING}\n')).toBeUndefined();
    expect(read('allow-scripts=a\u0007b')).toBeUndefined();
    expect(read('allow-scripts=')).toBeUndefined();
  });

  it('returns only the settings asked for: tokens and the rest of the file stay here', () => {
    const text =
      '//registry.npmjs.org/:_authToken=npm_SECRET\nallow-scripts=sharp\nemail=a@b.c\n' +
      '[section]\nallow-scripts=from-a-section\n';
    expect(npmrcSettings(text, wanted, {})).toEqual({ 'allow-scripts': 'sharp' });
  });
});

describe('npmUserSettings', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'warden-npmrc-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const ctx = (env: Record<string, string> = {}): LocationContext => ({
    home: dir,
    platform: 'linux',
    env,
    cwd: dir,
  });

  it("reads ~/.npmrc, or the file npm's userconfig setting names", async () => {
    await writeFile(join(dir, '.npmrc'), 'allow-scripts=sharp\n');
    expect(npmUserSettings(ctx(), builtinCatalogue())).toEqual({ 'allow-scripts': 'sharp' });
    const other = join(dir, 'elsewhere.npmrc');
    await writeFile(other, 'allow-scripts=canvas\n');
    for (const name of ['npm_config_userconfig', 'NPM_CONFIG_USERCONFIG']) {
      expect(npmUserConfigPath(ctx({ [name]: other }))).toBe(other);
      expect(npmUserSettings(ctx({ [name]: other }), builtinCatalogue())).toEqual({
        'allow-scripts': 'canvas',
      });
    }
  });

  it('is empty without a config file, or with one too big to be a config', async () => {
    expect(npmUserSettings(ctx(), builtinCatalogue())).toEqual({});
    await writeFile(join(dir, '.npmrc'), `allow-scripts=sharp\n${'#'.repeat(300 * 1024)}\n`);
    expect(npmUserSettings(ctx(), builtinCatalogue())).toEqual({});
  });

  it('reads nothing from a FIFO or a device put in its place, and does not wait on it', () => {
    // A FIFO no one writes would block a plain read for ever; /dev/zero would never end.
    const fifo = join(dir, 'fifo.npmrc');
    execFileSync('mkfifo', [fifo]);
    expect(npmUserSettings(ctx({ npm_config_userconfig: fifo }), builtinCatalogue())).toEqual({});
    expect(
      npmUserSettings(ctx({ npm_config_userconfig: '/dev/zero' }), builtinCatalogue()),
    ).toEqual({});
  });
});
