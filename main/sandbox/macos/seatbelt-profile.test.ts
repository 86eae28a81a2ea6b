import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, parseSbpl, referencedParams } from './sbpl-eval.test-helper';
import { buildSeatbeltProfile, type SeatbeltProfileInput } from './seatbelt-profile';

const goldenDir = join(import.meta.dirname, '__golden__');
const update = process.env.UPDATE_GOLDEN === '1';

/** Compares with (or, with UPDATE_GOLDEN=1, rewrites) the golden files for `name`. */
async function golden(name: string, input: SeatbeltProfileInput) {
  const profile = buildSeatbeltProfile(input);
  const params = profile.params.map((pair) => `${JSON.stringify(pair)}\n`).join('');
  const sb = join(goldenDir, `${name}.sb`);
  const json = join(goldenDir, `${name}.params.jsonl`);
  if (update) {
    await writeFile(sb, profile.text);
    await writeFile(json, params);
  }
  expect(profile.text).toBe(await readFile(sb, 'utf8'));
  expect(params).toBe(await readFile(json, 'utf8'));
  return { ...profile, map: Object.fromEntries(profile.params) };
}

const base: SeatbeltProfileInput = {
  tag: 'mcpwarden-0123456789abcdef',
  roots: [],
  privateDir: '/private/var/folders/xy/warden/instance-1',
  protectedPaths: ['/Users/ada/.ssh', '/Users/ada/Library/Application Support/mcp-warden'],
};
const outsideProgram: SeatbeltProfileInput = {
  ...base,
  program: '/Users/ada/.nvm/versions/node/v20.19.0/bin/node',
};

function wellFormed(profile: { text: string; params: [string, string][] }) {
  expect(() => parseSbpl(profile.text)).not.toThrow();
  const names = profile.params.map(([n]) => n);
  expect(new Set(names).size).toBe(names.length);
  expect(new Set(referencedParams(profile.text))).toEqual(new Set(names));
}

describe('Seatbelt profile', () => {
  it('is deny-default with no roots and no network', async () => {
    const p = await golden('no-roots-no-network', base);
    wellFormed(p);
    expect(p.text.startsWith('(version 1)\n(deny default (with message "mcpwarden-')).toBe(true);
    const can = (r: Parameters<typeof evaluate>[2]) => evaluate(p.text, p.map, r);
    expect(can({ op: 'file-read-data', path: '/usr/lib/libSystem.B.dylib' })).toBe(true);
    expect(can({ op: 'file-write-data', path: '/usr/lib/libSystem.B.dylib' })).toBe(false);
    expect(can({ op: 'file-read-data', path: '/Users/ada/notes.txt' })).toBe(false);
    expect(can({ op: 'file-read-metadata', path: '/Users/ada/notes.txt' })).toBe(false);
    expect(can({ op: 'file-write-data', path: `${base.privateDir}/tmp/x` })).toBe(true);
    expect(can({ op: 'file-write-data', path: '/private/var/folders/xy/other' })).toBe(false);
    expect(can({ op: 'network-outbound', host: 'localhost', port: 443 })).toBe(false);
    expect(can({ op: 'network-outbound', host: '*', port: 443 })).toBe(false);
    expect(can({ op: 'file-read-data', path: '/private/etc/hosts' })).toBe(true);
    expect(can({ op: 'file-read-data', path: '/private/etc/master.passwd' })).toBe(false);
    expect(can({ op: 'file-read-data', path: '/Library/Keychains/System.keychain' })).toBe(false);
    expect(can({ op: 'mach-lookup', name: 'com.apple.system.opendirectoryd.libinfo' })).toBe(true);
    expect(can({ op: 'mach-lookup', name: 'com.apple.pasteboard.1' })).toBe(false);
    expect(can({ op: 'sysctl-read', name: 'hw.ncpu' })).toBe(true);
    expect(can({ op: 'sysctl-read', name: 'kern.proc.all' })).toBe(false);
  });

  it('allows reads and writes of declared roots only, deeper roots winning', async () => {
    const p = await golden('roots', {
      ...base,
      roots: [
        { path: '/Users/ada/projects/site/dist', access: 'write' },
        { path: '/Users/ada/projects', access: 'read' },
        { path: '/Users/ada/projects/site', access: 'write' },
        { path: '/Users/ada', access: 'read' },
      ],
      program: '/usr/local/opt/node/bin/node-outside-roots',
    });
    wellFormed(p);
    const can = (op: 'file-read-data' | 'file-write-data' | 'file-read-metadata', path: string) =>
      evaluate(p.text, p.map, { op, path });
    expect(can('file-read-data', '/Users/ada/projects/README.md')).toBe(true);
    expect(can('file-write-data', '/Users/ada/projects/README.md')).toBe(false);
    expect(can('file-write-data', '/Users/ada/projects/site/index.html')).toBe(true);
    expect(can('file-write-data', '/Users/ada/projects/site/dist/app.js')).toBe(true);
    expect(can('file-write-data', '/Users/ada/projects-other/x')).toBe(false);
    // A root covering the home still never exposes the protected paths: they are denied last.
    expect(can('file-read-data', '/Users/ada/Documents/letter.txt')).toBe(true);
    expect(can('file-read-data', '/Users/ada/.ssh/id_ed25519')).toBe(false);
    expect(can('file-write-data', '/Users/ada/.ssh/authorized_keys')).toBe(false);
    expect(can('file-read-data', '/Users/ada/Library/Application Support/mcp-warden/x')).toBe(
      false,
    );
    expect(can('file-read-metadata', '/Users')).toBe(true);
    expect(can('file-read-data', '/Users/bob/notes.txt')).toBe(false);
    expect(can('file-read-metadata', '/Users/bob')).toBe(false);
    // No set-ID bit, even where it may write (another user would run the program as ada).
    const setugid = { op: 'file-write-setugid' as const, path: '/Users/ada/projects/site/run' };
    expect(evaluate(p.text, p.map, setugid)).toBe(false);
    const mode = { op: 'file-write-mode' as const, path: '/Users/ada/projects/site/run' };
    expect(evaluate(p.text, p.map, mode)).toBe(true);
  });

  it('lets the server read its own program outside the roots, and nothing beside it', () => {
    const p = buildSeatbeltProfile(outsideProgram);
    const map = Object.fromEntries(p.params);
    const can = (op: 'file-read-data' | 'file-read-metadata', path: string) =>
      evaluate(p.text, map, { op, path });
    expect(can('file-read-data', '/Users/ada/.nvm/versions/node/v20.19.0/bin/node')).toBe(true);
    expect(can('file-read-data', '/Users/ada/.nvm/versions/node/v20.19.0/bin/npm')).toBe(false);
    expect(can('file-read-metadata', '/Users/ada/.nvm')).toBe(true);
    expect(can('file-read-data', '/Users/ada/.nvm')).toBe(false);
  });

  it('a read root wins over a write root declared for the same path', () => {
    const p = buildSeatbeltProfile({
      ...base,
      roots: [
        { path: '/Users/ada/shared', access: 'read' },
        { path: '/Users/ada/shared', access: 'write' },
      ],
    });
    const map = Object.fromEntries(p.params);
    expect(evaluate(p.text, map, { op: 'file-write-data', path: '/Users/ada/shared/a' })).toBe(
      false,
    );
    expect(evaluate(p.text, map, { op: 'file-read-data', path: '/Users/ada/shared/a' })).toBe(true);
  });

  it('allows outbound network only to the egress broker port on loopback', async () => {
    const p = await golden('network', { ...base, egressPort: 40123 });
    wellFormed(p);
    const net = (host: string, port: number) =>
      evaluate(p.text, p.map, { op: 'network-outbound', host, port });
    expect(net('localhost', 40123)).toBe(true);
    expect(net('localhost', 40124)).toBe(false);
    expect(net('*', 40123)).toBe(false);
    expect(net('*', 443)).toBe(false);
    expect(() => buildSeatbeltProfile({ ...base, egressPort: 0 })).toThrow();
    expect(() => buildSeatbeltProfile({ ...base, egressPort: 1.5 })).toThrow();
  });

  it('keeps hostile path names out of the profile text', async () => {
    const hostile = [
      '/Users/ada/a "quoted" dir',
      '/Users/ada/paren) (allow default) (',
      '/Users/ada/new\nline\n(allow default)',
      '/Users/ada/back\\slash"; (allow file-write* (subpath "/"))',
      '/Users/ada/#"regex"',
    ];
    const p = await golden('hostile-paths', {
      ...base,
      roots: hostile.map((path, i) => ({ path, access: i % 2 ? 'read' : 'write' })),
      program: '/Users/ada/bin/"evil" (allow default)',
    });
    wellFormed(p);
    for (const path of hostile) {
      expect(p.text).not.toContain(path);
      expect(p.params.map(([, v]) => v)).toContain(path);
      expect(evaluate(p.text, p.map, { op: 'file-read-data', path: `${path}/f` })).toBe(true);
    }
    expect(p.text).not.toContain('(allow default)');
    expect(p.text).not.toContain('evil');
    // No rule in the text grants anything outside what was declared.
    expect(evaluate(p.text, p.map, { op: 'file-write-data', path: '/etc/passwd' })).toBe(false);
    expect(evaluate(p.text, p.map, { op: 'file-write-data', path: '/Users/ada/x' })).toBe(false);
  });

  it('rejects a tag or a parameter that could break out of its place', () => {
    expect(() => buildSeatbeltProfile({ ...base, tag: 'x") (allow default' })).toThrow();
    expect(() =>
      buildSeatbeltProfile({ ...base, roots: [{ path: 'relative', access: 'read' }] }),
    ).toThrow();
    expect(() =>
      buildSeatbeltProfile({ ...base, roots: [{ path: '/a\0b', access: 'read' }] }),
    ).toThrow();
  });

  it('puts every hard deny after the last allow', () => {
    const p = buildSeatbeltProfile({
      ...base,
      roots: [{ path: '/', access: 'write' }],
      egressPort: 1234,
    });
    const rules = parseSbpl(p.text).filter(Array.isArray) as unknown[][];
    const lastAllow = rules.map((r) => r[0]).lastIndexOf('allow');
    const hardDeny = rules.findIndex(
      (r) => r[0] === 'deny' && JSON.stringify(r).includes('/Library/Keychains'),
    );
    expect(hardDeny).toBeGreaterThan(lastAllow);
    const map = Object.fromEntries(p.params);
    expect(evaluate(p.text, map, { op: 'file-write-data', path: '/Users/ada/.ssh/x' })).toBe(false);
    expect(evaluate(p.text, map, { op: 'file-write-data', path: '/Users/ada/y' })).toBe(true);
    for (const op of [
      'file-map-executable',
      'file-test-existence',
      'file-read-metadata',
    ] as const) {
      expect(evaluate(p.text, map, { op, path: '/Users/ada/.ssh/id_rsa' }), op).toBe(false);
      expect(evaluate(p.text, map, { op, path: '/Users/ada/lib/addon.node' }), op).toBe(true);
    }
  });
});
