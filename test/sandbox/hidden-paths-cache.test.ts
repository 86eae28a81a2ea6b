/**
 * Escape suite, hidden-path search records: once a launch has recorded a root's folders, a later
 * launch still masks every `.env` that appeared since, however it appeared (a new file in a deep
 * folder, a new folder, a folder renamed to `.env`, a folder swapped for a symlink, an mtime set
 * back), and a record file that another user owns or may write is ignored. The server tries to
 * read each one from inside the sandbox.
 */
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenPathsCacheDir } from '../../main/sandbox/hidden-paths-cache';
import {
  addSecretsThreeWays,
  isRoot,
  isolatedHostEnv,
  sandboxRequired,
  sandboxStatus,
  sh,
} from './harness';

const status = await sandboxStatus();

describe('linux sandbox availability (hidden-path records)', () => {
  it.skipIf(status.usable || !sandboxRequired)('is required by WARDEN_REQUIRE_SANDBOX=1', () => {
    expect.fail(`the sandbox cannot run here: ${status.reason}`);
  });
});

const FOLDERS = ['a/deep/one', 'b/deep/two', 'c/deep/three', 'd/deep/four', 'e/deep/five', 'f/g'];
/** Folders must be older than the records' margin (2 s) to be recorded at all. */
const MARGIN_MS = 2_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let home: string;
let project: string;
let wardenHome: string;
let hostEnv: Record<string, string>;

async function makeTree() {
  home = await mkdtemp(join(userInfo().homedir, '.warden-hidden-records-'));
  project = join(home, 'project');
  for (const f of FOLDERS) await mkdir(join(project, f), { recursive: true });
  await writeFile(join(project, 'README.md'), 'README-CONTENT\n');
  wardenHome = await mkdtemp(join(tmpdir(), 'warden-hidden-records-state-'));
  hostEnv = isolatedHostEnv(home, wardenHome);
}

/** The record file of the project root (written before the launch that made it spawns). */
async function recordFile(): Promise<string> {
  const dir = hiddenPathsCacheDir(wardenHome);
  const name = (await readdir(dir)).find((n) => n.endsWith('.json'));
  if (!name) throw new Error('no hidden-path record file was written');
  return join(dir, name);
}

/** The folders the record file holds, each with the ctime it was recorded at. */
async function recorded(): Promise<Map<string, number>> {
  const data = JSON.parse(await readFile(await recordFile(), 'utf8')) as {
    folders: [string, number, number, number][];
  };
  return new Map(data.folders.map((row) => [row[0], row[3]]));
}

/** The server reads `paths` (and the README, which must stay readable). */
const readAll = (paths: string[]) =>
  sh(['--ro', project], `cat ${project}/README.md ${paths.join(' ')}; true`, hostEnv);

describe.skipIf(!status.usable)('escape: hidden paths after a recorded launch', () => {
  beforeAll(async () => {
    await makeTree();
    await sleep(MARGIN_MS);
    const cold = await readAll([]);
    expect(cold.stdout).toBe('README-CONTENT\n');
    // Every folder was old enough: the next launch takes all of them from the records.
    expect([...(await recorded()).keys()]).toContain(join(project, 'e/deep/five'));
  }, 30_000);
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(wardenHome, { recursive: true, force: true });
  });

  it('masks a .env new in a recorded deep folder, in a new folder, and in a renamed folder', async () => {
    const r = await readAll(await addSecretsThreeWays(project));
    expect(r.stdout).toContain('README-CONTENT');
    expect(r.stdout).not.toContain('SECRET');
  });

  it('masks a .env whose folder mtime was set back, and one reached through a swapped symlink', async () => {
    const four = join(project, 'd/deep/four');
    const { atime, mtime } = await stat(four);
    await writeFile(join(four, '.env'), 'SECRET-MTIME\n');
    await utimes(four, atime, mtime);
    await writeFile(join(project, 'f/g/.env'), 'SECRET-BEHIND-LINK\n');
    await rm(join(project, 'e/deep/five'), { recursive: true });
    await symlink(join(project, 'f/g'), join(project, 'e/deep/five'));
    const r = await readAll([join(four, '.env'), join(project, 'e/deep/five/.env')]);
    expect(r.stdout).toContain('README-CONTENT');
    expect(r.stdout).not.toContain('SECRET');
  });

  it('does not record a folder changed within the margin, and masks what is added to it next', async () => {
    const racy = join(project, 'f');
    await writeFile(join(racy, 'touched'), '');
    await readAll([]);
    // A record of it as it was may stay (it no longer matches); none of it as it is now.
    expect((await recorded()).get(racy)).not.toBe((await stat(racy)).ctimeMs);
    await writeFile(join(racy, '.env'), 'SECRET-RACY\n');
    const r = await readAll([join(racy, '.env')]);
    expect(r.stdout).not.toContain('SECRET');
  });
});

describe.skipIf(!status.usable)('escape: forged hidden-path records', () => {
  let file: string;
  beforeAll(async () => {
    await makeTree();
    await writeFile(join(project, 'a/deep/one/.env'), 'SECRET-FORGED\n');
    await sleep(MARGIN_MS);
    await readAll([]);
    file = await recordFile();
  }, 30_000);
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(wardenHome, { recursive: true, force: true });
  });

  /** Records that leave every match out, written with `mode`. */
  async function forge(mode: number) {
    const data = JSON.parse(await readFile(file, 'utf8')) as { folders: unknown[][] };
    for (const row of data.folders) row[6] = [];
    await rm(file, { force: true });
    await writeFile(file, JSON.stringify(data), { mode });
    await chmod(file, mode);
  }

  it('is taken in when private to this user (the control: records are trusted)', async () => {
    await forge(0o600);
    const r = await readAll([join(project, 'a/deep/one/.env')]);
    expect(r.stdout).toContain('SECRET-FORGED');
  });

  it('ignores a record file others may write, and still masks the .env', async () => {
    await forge(0o666);
    const r = await readAll([join(project, 'a/deep/one/.env')]);
    expect(r.stdout).toContain('README-CONTENT');
    expect(r.stdout).not.toContain('SECRET');
    // The full search that followed replaced it with a private file.
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it.skipIf(!isRoot)(
    'ignores a record file owned by another user (needs root to chown)',
    async () => {
      await forge(0o600);
      await chown(file, 65534, 65534);
      const r = await readAll([join(project, 'a/deep/one/.env')]);
      expect(r.stdout).toContain('README-CONTENT');
      expect(r.stdout).not.toContain('SECRET');
    },
  );
});
