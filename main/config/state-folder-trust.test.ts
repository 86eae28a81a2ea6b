/**
 * The state folder and its config.json are used only when they are this user's alone: the config
 * load refuses, before anything is written, a folder that group or others may write, one owned by
 * another user, a symlink in its place, and a config.json others may write or own, each naming the
 * path and the remedy. A folder others may read, or none yet, is fine: Warden makes it 0700, and
 * says so once, so that another local user can no longer read what it holds.
 */
import { existsSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ConfigStore } from './config-store';
import { asOtherUser, noOtherUser } from '../../test/helpers/other-user';
import { enterStateFolder, openStateFolder } from './state-folder-trust';

let dir = '';
tempDirEach('warden-trust-', (d) => (dir = d));

const isRoot = process.getuid?.() === 0;
const ROOT_ONLY = 'needs root to give a folder to another user (chown); skipped otherwise';
/** A uid that is not this process's. */
const OTHER_UID = 2345;
const CONFIG = `${JSON.stringify({ schemaVersion: 1, servers: [] })}\n`;

/** A state folder with `mode`, holding config.json when `config` says so. */
async function stateFolder(mode: number, config = false): Promise<string> {
  const home = join(dir, 'wh');
  await mkdir(home, { mode: 0o700 });
  if (config) await writeFile(join(home, 'config.json'), CONFIG, { mode: 0o600 });
  await chmod(home, mode);
  return home;
}

const opened = (home: string) => ConfigStore.open({ wardenHome: home, schemaId: undefined });

describe('the state folder', () => {
  it.each([
    ['group', 0o770],
    ['others', 0o703],
    ['everyone', 0o777],
  ])('is refused when %s may write it, with the chmod remedy', async (_who, mode) => {
    const home = await stateFolder(mode);
    await expect(opened(home)).rejects.toMatchObject({
      kind: 'state-folder-untrusted',
      path: home,
      message: `refusing the state folder ${home}: group or others may write it (mode ${mode.toString(8)})`,
      remedy: expect.stringContaining(`chmod go-w ${home}`) as string,
    });
    // Nothing was written there: no config.json, no record of it, no mark.
    expect(await readdir(home)).toEqual([]);
    expect(enterStateFolder(home).problem?.fault).toBe('writable');
  });

  it('is used when others may read it but not write it, and made private when missing', async () => {
    const readable = await stateFolder(0o755, true);
    expect(enterStateFolder(readable).problem).toBeUndefined();
    expect((await opened(readable)).listServers()).toEqual([]);
    expect((await lstat(readable)).mode & 0o777).toBe(0o700);

    const missing = join(dir, 'new', 'wh');
    expect(enterStateFolder(missing).problem).toBeUndefined();
    await (await opened(missing)).flush();
    expect((await lstat(missing)).mode & 0o777).toBe(0o700);
  });

  it.skipIf(!isRoot)(`is refused when another user owns it (${ROOT_ONLY})`, async () => {
    // This process runs as root here: even root uses only a folder of root's.
    const home = await stateFolder(0o700, true);
    await chown(home, OTHER_UID, OTHER_UID);
    await expect(opened(home)).rejects.toMatchObject({
      kind: 'state-folder-untrusted',
      path: home,
      message: `refusing the state folder ${home}: it belongs to another user (uid ${OTHER_UID}; Warden runs as uid 0)`,
      remedy: expect.stringContaining('set WARDEN_HOME to a folder of your own') as string,
    });
    expect(enterStateFolder(home).problem?.fault).toBe('other-owner');
  });

  it('is refused when it is a symlink, even to a private folder of this user', async () => {
    // WARDEN_HOME through a link is not supported: the roots guard and the sandbox's protected
    // paths name the state folder by its path as given, not by where a link leads.
    const real = await stateFolder(0o700, true);
    const link = join(dir, 'link');
    await symlink(real, link);
    for (const home of [link, `${link}/`, `${link}/.`]) {
      await expect(opened(home)).rejects.toMatchObject({
        kind: 'state-folder-untrusted',
        path: link,
        message: `refusing the state folder ${link}: it is a symlink`,
        remedy: expect.stringContaining('point WARDEN_HOME at the folder it links to') as string,
      });
      expect(enterStateFolder(home).problem?.fault).toBe('symlink');
    }
  });
});

describe('a state folder that group or others may read or enter', () => {
  it.each([
    ['others may read and enter it', 0o755, 0o700],
    ['the group may read it', 0o740, 0o700],
    ['others may enter it', 0o701, 0o700],
  ])('is made private when %s, saying so once', async (_why, mode, after) => {
    const home = await stateFolder(mode, true);
    const notes: string[] = [];
    await openStateFolder(home, (line) => notes.push(line));
    await openStateFolder(home, (line) => notes.push(line));
    expect((await lstat(home)).mode & 0o777).toBe(after);
    expect(notes).toEqual([
      `note: the state folder ${home} was mode 0${mode.toString(8)}, open to other users; it is 0700 now: what it holds (the audit log among it) is yours alone`,
    ]);
  });

  it('is made private by every warden process before its command (runEntry)', async () => {
    const home = await stateFolder(0o755, true);
    expect(enterStateFolder(home).note).toContain(`the state folder ${home} was mode 0755`);
    expect((await lstat(home)).mode & 0o777).toBe(0o700);
    expect(enterStateFolder(home).note).toBeUndefined();
    // A folder refused is left as it is.
    await chmod(home, 0o775);
    expect(enterStateFolder(home).note).toBeUndefined();
    expect((await lstat(home)).mode & 0o777).toBe(0o775);
  });

  it.skipIf(noOtherUser !== undefined)(
    `cannot be listed or read by another local user once opened (${noOtherUser ?? 'as that user'})`,
    async () => {
      await chmod(dir, 0o755);
      const home = await stateFolder(0o755, true);
      await writeFile(join(home, 'audit.db'), 'tool arguments', { mode: 0o644 });
      await chmod(join(home, 'audit.db'), 0o644);
      expect(asOtherUser(['cat', join(home, 'audit.db')]).status).toBe(0);
      await openStateFolder(home, () => undefined);
      for (const argv of [
        ['ls', home],
        ['cat', join(home, 'audit.db')],
      ]) {
        const r = asOtherUser(argv);
        expect(r.status).not.toBe(0);
        expect(r.out).toContain('Permission denied');
      }
    },
  );
});

describe('a state folder that cannot be looked at', () => {
  it('is refused with the reason, not taken as missing', async () => {
    const file = join(dir, 'file');
    await writeFile(file, '');
    const home = join(file, 'wh');
    expect(enterStateFolder(home).problem).toMatchObject({
      fault: 'unexamined',
      message: `refusing the state folder ${home}: it cannot be looked at (ENOTDIR)`,
    });
  });
});

describe("the state folder's config.json", () => {
  it.each([
    ['group', 0o660],
    ['others', 0o602],
  ])('is refused when %s may write it, and left where it is', async (_who, mode) => {
    const home = await stateFolder(0o700, true);
    const config = join(home, 'config.json');
    await chmod(config, mode);
    await expect(opened(home)).rejects.toMatchObject({
      kind: 'state-folder-untrusted',
      path: config,
      message: `refusing ${config}: group or others may write it (mode ${mode.toString(8)})`,
      remedy: expect.stringContaining(`chmod go-w ${config}`) as string,
    });
    // Neither moved aside nor replaced, and nothing else written beside it.
    expect(await readdir(home)).toEqual(['config.json']);
    expect(enterStateFolder(home).problem?.fault).toBe('writable');
  });

  it.skipIf(!isRoot)(`is refused when another user owns it (${ROOT_ONLY})`, async () => {
    const home = await stateFolder(0o700, true);
    const config = join(home, 'config.json');
    await chown(config, OTHER_UID, OTHER_UID);
    await expect(opened(home)).rejects.toMatchObject({
      path: config,
      message: `refusing ${config}: it belongs to another user (uid ${OTHER_UID}; Warden runs as uid 0)`,
    });
    expect(enterStateFolder(home).problem?.fault).toBe('other-owner');
  });

  it('is refused when it is a symlink', async () => {
    const home = await stateFolder(0o700);
    const config = join(home, 'config.json');
    const elsewhere = join(dir, 'elsewhere.json');
    await writeFile(elsewhere, CONFIG, { mode: 0o600 });
    await symlink(elsewhere, config);
    await expect(opened(home)).rejects.toMatchObject({
      path: config,
      message: `refusing ${config}: it is a symlink`,
    });
    expect(enterStateFolder(home).problem?.fault).toBe('not-a-file');
    expect(existsSync(elsewhere)).toBe(true);
  });
});
