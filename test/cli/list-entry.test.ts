/**
 * `warden servers list` has an entry of its own (out/cli/list.mjs): one file that, with no core
 * running, lists from config.json and the host facts without the table of every command or
 * Node's networking. It answers as the whole CLI does, and hands the whole CLI everything else:
 * other flags, help, and a state folder with a control socket (a core to ask, or a socket it must
 * refuse to talk to).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamicLoads, staticImports } from '../helpers/built-entry';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { controlChannelPath, listenControlChannel } from '../../main/core/control-channel';

const entry = 'out/cli/list.mjs';
let home: string;
beforeAll(async () => {
  if (!existsSync(entry)) expect.fail(`${entry} is missing: run npm run build before the tests`);
  home = await mkdtemp(join(tmpdir(), 'warden-list-entry-'));
  const core = await createCore({ wardenHome: home });
  for (const [name, isolation] of [
    ['boxed', 'sandbox'],
    ['bare', 'off'],
  ] as const) {
    await core.config.addServer({
      name,
      launch: { command: '/bin/echo', args: [name] },
      policy: { ...defaultPolicy(), isolation },
      acknowledged: true,
    });
  }
  await core.close();
});
afterAll(() => rm(home, { recursive: true, force: true }));

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** `warden ARGS` as users start it (bin/warden.js), or on the whole CLI's entry. */
const run = (script: 'bin/warden.js' | 'out/cli/warden.mjs', ...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { env: { ...process.env, WARDEN_HOME: home }, encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ status: Number(error?.code ?? 0), stdout, stderr }),
    );
  });
const same = async (...args: string[]) => {
  const own = await run('bin/warden.js', ...args);
  expect(own).toEqual(await run('out/cli/warden.mjs', ...args));
  return own;
};

describe('the servers list entry', () => {
  it('is one module that loads only named CLI entries, neither zod nor networking', () => {
    const text = readFileSync(entry, 'utf8');
    expect(staticImports(text)).toEqual([]);
    for (const file of dynamicLoads(text)) {
      expect(file).toMatch(/^\.\/[a-z-]+\.mjs$/);
      expect(existsSync(join('out/cli', file)), file).toBe(true);
    }
    expect(dynamicLoads(text)).toContain('./cli.mjs');
    expect(text).not.toMatch(/node_modules\/zod\//);
    expect(text).not.toMatch(/from "node:(net|http|https|tls)"/);
    expect(text.length).toBeLessThan(40_000);
  });

  it('lists as the whole CLI does, from recorded bytes and from bytes it must validate', async () => {
    const listed = await same('servers', 'list');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^boxed\t/m);
    expect(listed.stdout).toMatch(/^bare\t/m);
    expect(JSON.parse((await same('servers', 'list', '--json')).stdout)).toHaveLength(2);
    // Bytes changed by hand are not recorded as valid: the config store validates them.
    await appendFile(join(home, 'config.json'), '\n\n');
    expect((await same('servers', 'list')).stdout).toBe(listed.stdout);
  });

  it('hands help and other flags to the whole CLI', async () => {
    expect((await same('servers', 'list', '--help')).stdout).toContain(
      'Usage: warden servers list',
    );
    expect((await same('servers', 'list', '--bogus')).status).toBe(2);
  });

  it('asks a running core, lists past a stale socket, and refuses one others could reach', async () => {
    const core = await createCore({ wardenHome: home });
    const control = await listenControlChannel(core);
    try {
      const listed = await same('servers', 'list');
      expect(listed.status).toBe(0);
      expect(listed.stdout).toMatch(/^boxed\t/m);
    } finally {
      await control.close();
      await core.close();
    }
    // A socket left behind by a core that has gone: listed without one, as the whole CLI does.
    const socket = controlChannelPath(home);
    await writeFile(socket, '');
    const stale = await same('servers', 'list');
    expect(stale.status).toBe(0);
    expect(stale.stdout).toMatch(/^boxed\t/m);
    // One in a folder other users may enter: the whole CLI's refusal, not a listing.
    await chmod(join(socket, '..'), 0o755);
    const refused = await same('servers', 'list');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/refusing to talk to the Warden control channel: other users/);
  });
});
