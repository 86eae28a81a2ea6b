/** The Seatbelt profile's hidden paths: inside a root they exist, but nothing of them is read. */
import { describe, expect, it } from 'vitest';
import { buildSeatbeltProfile } from './seatbelt-profile';
import { evaluate, parseSbpl, referencedParams } from './sbpl-eval.test-helper';

const profile = buildSeatbeltProfile({
  tag: 'mcpwarden-0123456789abcdef',
  roots: [{ path: '/Users/ada', access: 'write' }],
  privateDir: '/private/var/folders/xy/warden/instance-1',
  protectedPaths: ['/Users/ada/Library/Application Support/mcp-warden'],
  hiddenPaths: [
    { path: '/Users/ada/.aws', directory: true },
    { path: '/Users/ada/project/.env', directory: false },
  ],
});
const params = Object.fromEntries(profile.params);
const can = (op: Parameters<typeof evaluate>[2]) => evaluate(profile.text, params, op);

describe('Seatbelt profile: hidden paths', () => {
  it('is well formed, with one parameter per hidden path', () => {
    expect(() => parseSbpl(profile.text)).not.toThrow();
    expect(new Set(referencedParams(profile.text))).toEqual(new Set(Object.keys(params)));
    expect(params.HIDDEN_0).toBe('/Users/ada/.aws');
  });

  it('denies reading, mapping and writing a hidden file or folder; its existence shows', () => {
    for (const path of [
      '/Users/ada/.aws/credentials',
      '/Users/ada/.aws',
      '/Users/ada/project/.env',
    ]) {
      expect(can({ op: 'file-read-data', path }), path).toBe(false);
      expect(can({ op: 'file-write-data', path }), path).toBe(false);
      expect(can({ op: 'file-map-executable', path }), path).toBe(false);
    }
    expect(can({ op: 'file-test-existence', path: '/Users/ada/project/.env' })).toBe(true);
    expect(can({ op: 'file-read-metadata', path: '/Users/ada/.aws' })).toBe(true);
  });

  it('still reads and writes the rest of the root', () => {
    expect(can({ op: 'file-read-data', path: '/Users/ada/project/README.md' })).toBe(true);
    expect(can({ op: 'file-read-data', path: '/Users/ada/project/.envrc-notes' })).toBe(true);
    expect(can({ op: 'file-write-data', path: '/Users/ada/project/new.txt' })).toBe(true);
  });

  it('keeps the folders that hold a hidden or protected path from being renamed or removed', () => {
    // To Seatbelt a rename is an unlink of its source: renaming project/ would carry .env out
    // from under the rule that names it, and Library/ would carry Warden's state.
    for (const path of [
      '/Users/ada/project',
      '/Users/ada/Library',
      '/Users/ada/Library/Application Support',
    ]) {
      expect(can({ op: 'file-write-unlink', path }), path).toBe(false);
    }
    expect(can({ op: 'file-write-create', path: '/Users/ada/project/new.txt' })).toBe(true);
    expect(can({ op: 'file-write-unlink', path: '/Users/ada/project/old.txt' })).toBe(true);
    expect(can({ op: 'file-write-unlink', path: '/Users/ada/other' })).toBe(true);
  });
});
