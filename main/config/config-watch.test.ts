/**
 * Following config.json: every change another process makes is taken in, however often the file
 * is replaced, and the audit log's writes beside it do not wake the follower.
 */
import { appendFile } from 'node:fs/promises';
import { watch } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ConfigStore } from './config-store';
import { watchConfigFile } from './config-watch';

let home = '';
tempDirEach('warden-config-watch-', (d) => (home = d));

const launch = { command: 'true', args: [] };

/** What another process (the CLI) does: open the file, add a server, write it back. */
async function addFromOutside(name: string): Promise<void> {
  const other = await ConfigStore.open({ wardenHome: home });
  await other.addServer({ name, launch, policy: defaultPolicy() });
}

/** `watch`, counting the events it delivers. */
function countingWatch(): { watch: typeof watch; events: () => number } {
  let events = 0;
  const counting = ((path: string, listener: (event: string, file: string | null) => void) =>
    watch(path, (event, file) => {
      events += 1;
      listener(event, file);
    })) as unknown as typeof watch;
  return { watch: counting, events: () => events };
}

it('takes in every replacement of the file, not only the first', async () => {
  const store = await ConfigStore.open({ wardenHome: home });
  await store.addServer({ name: 'own', launch, policy: defaultPolicy() });
  const stop = watchConfigFile(store);
  try {
    for (const name of ['one', 'two', 'three']) {
      await addFromOutside(name);
      await expect.poll(() => store.getServer(name)?.name, { timeout: 3000 }).toBe(name);
    }
    // Its own write in between replaces the file too; the next outside change is still seen.
    await store.addServer({ name: 'own-2', launch, policy: defaultPolicy() });
    await addFromOutside('four');
    await expect.poll(() => store.getServer('four')?.name, { timeout: 3000 }).toBe('four');
    expect(store.listServers().map((s) => s.name)).toEqual(
      expect.arrayContaining(['own', 'one', 'two', 'three', 'own-2', 'four']),
    );
  } finally {
    stop();
  }
});

it('a file that does not exist yet is taken in when it appears, and followed afterwards', async () => {
  const store = await ConfigStore.open({ wardenHome: home });
  const stop = watchConfigFile(store);
  try {
    await addFromOutside('first');
    await expect.poll(() => store.getServer('first')?.name, { timeout: 3000 }).toBe('first');
    await addFromOutside('second');
    await expect.poll(() => store.getServer('second')?.name, { timeout: 3000 }).toBe('second');
  } finally {
    stop();
  }
});

it('writes to other files in the folder (the audit log) deliver no event', async () => {
  const store = await ConfigStore.open({ wardenHome: home });
  await store.addServer({ name: 'own', launch, policy: defaultPolicy() });
  const counted = countingWatch();
  const stop = watchConfigFile(store, undefined, counted.watch);
  try {
    for (let i = 0; i < 100; i++) await appendFile(join(home, 'audit.db-wal'), 'page');
    await new Promise((r) => setTimeout(r, 200));
    expect(counted.events()).toBe(0);
    // The follower is alive: a change to the file itself is delivered and taken in.
    await addFromOutside('outside');
    await expect.poll(() => store.getServer('outside')?.name, { timeout: 3000 }).toBe('outside');
    expect(counted.events()).toBeGreaterThan(0);
  } finally {
    stop();
  }
});

it('after stop, changes are no longer taken in', async () => {
  const store = await ConfigStore.open({ wardenHome: home });
  await store.addServer({ name: 'own', launch, policy: defaultPolicy() });
  const stop = watchConfigFile(store);
  stop();
  await addFromOutside('late');
  await new Promise((r) => setTimeout(r, 300));
  expect(store.getServer('late')).toBeUndefined();
});
