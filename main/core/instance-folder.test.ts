/**
 * Instance folders and their owner records: a folder whose owner is gone for certain is swept;
 * one whose owner lives, or whose owner cannot be told (no record, a record that does not parse,
 * a record from another PID namespace), is kept.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { createCore } from './core';
import { makeInstanceFolder, removeInstanceFolder, sweepInstanceFolders } from './instance-folder';
import { instancesDirOf } from './instances-dir';

let dir = '';
tempDirEach('warden-instance-folder-', (d) => (dir = d));

/** The PID of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** Makes `name` as this process would, then rewrites its owner record with `change`. */
async function folderOwnedBy(
  name: string,
  change: (owner: Record<string, unknown>) => Record<string, unknown>,
): Promise<string> {
  const folder = join(instancesDirOf(dir), name);
  await makeInstanceFolder(folder);
  const record = `${folder}.owner`;
  const owner = JSON.parse(await readFile(record, 'utf8')) as Record<string, unknown>;
  await writeFile(record, JSON.stringify(change(owner)));
  return folder;
}

describe('an instance folder', () => {
  it('is made private with a record of its owner beside it, and removed with it', async () => {
    const folder = join(instancesDirOf(dir), 'a');
    await makeInstanceFolder(folder);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    const owner = JSON.parse(await readFile(`${folder}.owner`, 'utf8')) as { pid: number };
    expect(owner.pid).toBe(process.pid);
    expect((await stat(`${folder}.owner`)).mode & 0o777).toBe(0o600);
    await removeInstanceFolder(folder);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`${folder}.owner`)).toBe(false);
  });
});

describe('sweeping instance folders', () => {
  it('removes a folder whose owner has exited, with its record and its contents', async () => {
    const pid = await deadPid();
    const folder = await folderOwnedBy('dead', (o) => ({ ...o, pid }));
    await writeFile(join(folder, 'left-behind'), 'x');
    expect(await sweepInstanceFolders(instancesDirOf(dir))).toEqual([folder]);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`${folder}.owner`)).toBe(false);
  });

  it('keeps the folders of a live owner, and those whose owner cannot be told', async () => {
    const pid = await deadPid();
    const live = await folderOwnedBy('live', (o) => o);
    const elsewhere = await folderOwnedBy('elsewhere', (o) => ({
      ...o,
      pid,
      pidns: 'pid:[1]',
    }));
    const garbled = join(instancesDirOf(dir), 'garbled');
    await mkdir(garbled);
    await writeFile(`${garbled}.owner`, '{"pid": "not a number"');
    const unrecorded = join(instancesDirOf(dir), 'unrecorded');
    await mkdir(unrecorded);
    expect(await sweepInstanceFolders(instancesDirOf(dir))).toEqual([]);
    for (const folder of [live, elsewhere, garbled, unrecorded])
      expect(existsSync(folder)).toBe(true);
  });

  // Only Linux names the boot and the start time of a process.
  it.skipIf(process.platform !== 'linux')(
    'removes a folder whose PID now belongs to another process or another boot',
    async () => {
      const reused = await folderOwnedBy('reused', (o) => ({ ...o, start: '1' }));
      const rebooted = await folderOwnedBy('rebooted', (o) => ({ ...o, boot: 'another-boot' }));
      const removed = await sweepInstanceFolders(instancesDirOf(dir));
      expect(removed.sort()).toEqual([rebooted, reused]);
    },
  );

  it('does not follow a symlink left where a dead owner’s folder was', async () => {
    const pid = await deadPid();
    const folder = await folderOwnedBy('linked', (o) => ({ ...o, pid }));
    await removeInstanceFolder(folder);
    const target = join(dir, 'precious');
    await mkdir(target);
    await writeFile(join(target, 'file'), 'keep');
    await writeFile(`${folder}.owner`, JSON.stringify({ pid }));
    await symlink(target, folder);
    await sweepInstanceFolders(instancesDirOf(dir));
    expect(await readFile(join(target, 'file'), 'utf8')).toBe('keep');
  });

  it('is done by a core when it starts', async () => {
    const pid = await deadPid();
    const folder = await folderOwnedBy('killed', (o) => ({ ...o, pid }));
    const core = await createCore({ wardenHome: dir, probeHost: false });
    try {
      for (let i = 0; i < 100 && existsSync(folder); i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(existsSync(folder)).toBe(false);
    } finally {
      await core.close();
    }
  });
});
