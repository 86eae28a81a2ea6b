/**
 * `warden connect` has an entry of its own (out/cli/connect.mjs): one small file with the command,
 * all that joining a running core needs, which turns on the compile cache before anything bigger
 * loads. Without a running core it loads the early launch (early-launch.mjs), built as one file
 * too: the launch reads and links that one module before the server starts, not a chain of
 * chunks. What they load later comes from the CLI's named entries and the core that goes on with
 * the session (standalone.mjs, built on its own with its chunks under out/cli/core); what only
 * some launches need (the egress broker's HTTP and TLS, zod for a managed policy file) is in
 * neither. Any other command line that starts with `connect` is the whole CLI's to answer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamicLoads, staticClosure, staticImports } from '../helpers/built-entry';

const entry = 'out/cli/connect.mjs';
const body = 'out/cli/early-launch.mjs';
let home: string;
beforeAll(async () => {
  if (!existsSync(entry)) expect.fail(`${entry} is missing: run npm run build before the tests`);
  home = await mkdtemp(join(tmpdir(), 'warden-connect-entry-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const warden = (...args: string[]) =>
  spawnSync(process.execPath, ['bin/warden.js', ...args], {
    env: { ...process.env, WARDEN_HOME: home },
    encoding: 'utf8',
    input: '',
  });

describe('the connect entry', () => {
  it('is a small entry and an early launch of one module each, then named CLI entries', () => {
    const text = readFileSync(entry, 'utf8');
    expect(staticImports(text)).toEqual([]);
    expect(dynamicLoads(text).sort()).toEqual([
      './early-launch.mjs',
      './standalone.mjs',
      './warden.mjs',
    ]);
    expect(text.length).toBeLessThan(30_000);
    const launch = readFileSync(body, 'utf8');
    expect(staticImports(launch)).toEqual([]);
    expect(dynamicLoads(launch).length).toBeGreaterThan(0);
    for (const file of [...dynamicLoads(text), ...dynamicLoads(launch)]) {
      expect(file).toMatch(/^\.\/[a-z-]+\.mjs$/);
      expect(existsSync(join('out/cli', file)), file).toBe(true);
    }
  });

  it('holds neither zod nor the HTTP and TLS modules the egress broker loads when needed', () => {
    for (const file of [entry, body]) {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toMatch(/node_modules\/zod\//);
      expect(text).not.toMatch(/from "node:(http|https|tls)"/);
    }
  });

  it('goes on without a core on a core and an audit log that load no zod, no sandbox backend and no pattern engine', () => {
    // They load beside the server's start, and on a machine with few CPUs whatever loads there
    // delays the server's answer. zod loads only when something has to be validated: a config
    // not recorded as valid, a change, an audit query. The sandbox backends are the launch's
    // (early-launch.mjs); the core takes the one that launched the server.
    const core = staticClosure('out/cli/standalone.mjs');
    const store = core.flatMap((file) =>
      dynamicLoads(readFileSync(file, 'utf8'))
        .filter((load) => /^\.\/(core\/)?audit-store-[A-Z0-9]+\.mjs$/.test(load))
        .map((load) => join(dirname(file), load)),
    );
    expect(store).toHaveLength(1);
    const files = [...core, ...staticClosure(store[0]!)];
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/node_modules\/zod\//);
      // The match= pattern engine loads where a policy has one (app/policy/pattern-engine.ts).
      expect(text, file).not.toMatch(/node_modules\/re2js\//);
      expect(text, file).not.toMatch(
        /^\/\/ main\/sandbox\/(linux\/bwrap-backend|linux\/landlock\/landlock-backend|macos\/seatbelt-backend|windows\/windows-backend|linux\/seccomp\/)/m,
      );
    }
  });

  it('answers a connect command line that is not a plain connect through the whole CLI', () => {
    const help = warden('connect', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: warden connect NAME');
    const unknown = warden('connect', 'x', '--no-such-flag');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/no-such-flag/);
  });

  it('refuses an unknown server with what the state folder holds', () => {
    const r = warden('connect', 'nosuch');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/nosuch/);
  });
});
