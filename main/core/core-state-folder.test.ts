/**
 * A core starts only on a state folder that is this user's alone: another user's folder, or one
 * others may write, holding a config.json that runs their command with isolation off, is refused
 * before the command runs (the `warden connect NAME` of the security review, here as its session's
 * own core), and the lock the app and `warden serve` take first writes nothing there.
 */
import { existsSync } from 'node:fs';
import { chmod, chown, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { startStandalone } from '../../test/helpers/standalone-session';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ConfigStore } from '../config/config-store';
import { acquireCoreLock } from './core-lock';
import { createCore } from './core';

let dir = '';
tempDirEach('warden-core-trust-', (d) => (dir = d));

const isRoot = process.getuid?.() === 0;
/** A uid that is not this process's. */
const OTHER_UID = 2345;

/**
 * The planted state folder: `notes` runs a command that leaves `marker`, with isolation off;
 * the folder is everyone's to write and, where this test may chown (as root), another user's.
 */
async function plantedFolder(marker: string): Promise<string> {
  const home = join(dir, 'wh');
  const store = await ConfigStore.open({ wardenHome: home, schemaId: undefined });
  const added = await store.addServer({
    name: 'notes',
    launch: { command: 'sh', args: ['-c', `touch '${marker}'; sleep 30`] },
    policy: { ...defaultPolicy(), isolation: 'off' },
    acknowledged: true,
  });
  expect(added.ok).toBe(true);
  await store.flush();
  if (isRoot) {
    for (const name of await readdir(home)) await chown(join(home, name), OTHER_UID, OTHER_UID);
    await chown(home, OTHER_UID, OTHER_UID);
  }
  await chmod(home, 0o777);
  return home;
}

describe('a core on a state folder that is not this user alone’s', () => {
  it('is refused before the planted command runs, with the path and the remedy', async () => {
    const marker = join(dir, 'ran');
    const home = await plantedFolder(marker);
    const session = startStandalone('notes', home, undefined);
    // Were the session to run, its end comes with the client's.
    const ending = setTimeout(() => session.stdin.end(), 3000);
    try {
      await expect(session.ran).rejects.toMatchObject({
        kind: 'state-folder-untrusted',
        path: home,
        message: isRoot
          ? `refusing the state folder ${home}: it belongs to another user (uid ${OTHER_UID}; Warden runs as uid 0)`
          : `refusing the state folder ${home}: group or others may write it (mode 777)`,
        remedy: expect.stringContaining(
          isRoot ? 'set WARDEN_HOME to a folder of your own' : `chmod go-w ${home}`,
        ) as string,
      });
    } finally {
      clearTimeout(ending);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('is refused for a config.json others may write, which stays as it is', async () => {
    const home = join(dir, 'wh');
    const store = await ConfigStore.open({ wardenHome: home, schemaId: undefined });
    const launch = { command: 'true', args: [] };
    expect((await store.addServer({ name: 'notes', launch, policy: defaultPolicy() })).ok).toBe(
      true,
    );
    await store.flush();
    const config = join(home, 'config.json');
    await chmod(config, 0o666);
    const before = (await readdir(home)).sort();
    await expect(createCore({ wardenHome: home, probeHost: false })).rejects.toMatchObject({
      kind: 'state-folder-untrusted',
      path: config,
      remedy: expect.stringContaining(`chmod go-w ${config}`) as string,
    });
    expect((await readdir(home)).sort()).toEqual(before);
  });
});

describe('the core lock', () => {
  it('refuses a state folder others may write before it writes anything there', async () => {
    const home = join(dir, 'wh');
    await ConfigStore.open({ wardenHome: home, schemaId: undefined });
    await chmod(home, 0o775);
    await expect(acquireCoreLock(home, 'warden serve')).rejects.toMatchObject({
      kind: 'state-folder-untrusted',
      path: home,
      remedy: expect.stringContaining(`chmod go-w ${home}`) as string,
    });
    expect(await readdir(home)).toEqual([]);
  });
});
