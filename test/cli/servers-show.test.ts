/**
 * `warden servers show NAME` with no core running answers from config.json and the host facts a
 * launch would use, without building a core (no audit log, no fresh probe): the same text and
 * JSON a running core gives. What it cannot answer that way (`--effective`, a server that is not
 * there, another flag) goes to the whole servers command, as before.
 */
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { listenControlChannel } from '../../main/core/control-channel';
import { type WardenRun, runWarden } from '../helpers/warden-bin';
import { sandboxStatus } from '../sandbox/harness';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-servers-show-'));
  const core = await createCore({ wardenHome: home });
  await core.config.addServer({
    name: 'boxed',
    launch: { command: '/bin/echo', args: ['boxed'] },
    policy: {
      ...defaultPolicy(),
      filesystem: { roots: [{ path: tmpdir(), access: 'read' }] },
      network: { ...defaultPolicy().network, mode: 'allowlist', allow: ['api.test'] },
    },
    acknowledged: true,
  });
  await core.config.addServer({
    name: 'bare',
    launch: { command: '/bin/echo', args: ['bare'] },
    policy: { ...defaultPolicy(), isolation: 'off' },
    acknowledged: false,
  });
  await core.close();
});
afterAll(() => rm(home, { recursive: true, force: true }));

/** `warden ARGS` as users start it. */
const run = (...args: string[]) => runWarden(args, { ...process.env, WARDEN_HOME: home });

/** What each command prints with a core running (the core's answer). */
async function withCore(commands: string[][]): Promise<WardenRun[]> {
  const core = await createCore({ wardenHome: home });
  const control = await listenControlChannel(core);
  try {
    const runs: WardenRun[] = [];
    for (const args of commands) runs.push(await run(...args));
    return runs;
  } finally {
    await control.close();
    await core.close();
  }
}

const sandbox = await sandboxStatus();

describe('warden servers show without a core', () => {
  const shows = [
    ['servers', 'show', 'boxed'],
    ['servers', 'show', 'boxed', '--json'],
    ['servers', 'show', 'bare'],
    ['servers', 'show', '--json', 'bare'],
  ];

  it.skipIf(!sandbox.usable)('shows what a running core shows', async () => {
    const fromCore = await withCore(shows);
    for (const [i, args] of shows.entries())
      expect(await run(...args), args.join(' ')).toEqual(fromCore[i]);
    expect(fromCore[0]!.stdout).toMatch(/^isolation: {2}sandboxed \(bwrap\)$/m);
    expect(fromCore[2]!.stdout).toMatch(/^warning: {4}new server/m);
  });

  it.skipIf(!sandbox.usable)('answers without opening the audit log', async () => {
    // An audit log that cannot be opened stops every command that builds a core.
    const log = join(home, 'audit.db');
    await rename(log, `${log}.aside`);
    await mkdir(log);
    try {
      const shown = await run('servers', 'show', 'boxed');
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^name: {7}boxed$/m);
      const effective = await run('servers', 'show', 'boxed', '--effective');
      expect(effective.code).toBe(1);
      expect(effective.stderr).toMatch(/audit log/);
    } finally {
      await rm(log, { recursive: true });
      await rename(`${log}.aside`, log);
    }
  });

  it('hands --effective, an unknown server and other flags to the whole command', async () => {
    const effective = await run('servers', 'show', 'boxed', '--effective');
    expect(effective.code).toBe(0);
    expect(effective.stdout).toMatch(/\[(server|default)/);
    const missing = await run('servers', 'show', 'nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^warden: no server named "nope"/);
    expect((await run('servers', 'show', 'boxed', '--bogus')).code).toBe(2);
    expect((await run('servers', 'show')).code).toBe(2);
  });
});
