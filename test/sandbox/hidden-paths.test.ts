/**
 * Escape suite, inherited guards: a whole home shared read-only (or writable) still hides the
 * credentials and `.env` files inside it. The server sees that they exist, reads nothing of them,
 * cannot unmask them, and reaches them through no symlink; an explicit exception shows one.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedHostEnv, sandboxRequired, sandboxStatus, sh } from './harness';

const status = await sandboxStatus();

describe('linux sandbox availability (hidden paths)', () => {
  it.skipIf(status.usable || !sandboxRequired)('is required by WARDEN_REQUIRE_SANDBOX=1', () => {
    expect.fail(`the sandbox cannot run here: ${status.reason}`);
  });
});

const SECRETS: Record<string, string> = {
  '.ssh/id_ed25519': 'SSH-KEY-SECRET',
  '.aws/credentials': 'AWS-SECRET',
  // Plain-text credential stores of other tools, beside caches a server may be given.
  '.git-credentials': 'GIT-CREDENTIAL-SECRET',
  '.config/gcloud/application_default_credentials.json': 'GCLOUD-SECRET',
  '.gradle/gradle.properties': 'GRADLE-SECRET',
  '.cargo/credentials.toml': 'CARGO-SECRET',
  '.pgpass': 'PGPASS-SECRET',
  'project/.env': 'DOTENV-SECRET',
  'project/deep/er/.env.local': 'DEEP-DOTENV-SECRET',
};

// bubblewrap masks them; Landlock, which only adds access, grants the rest of the root entry by
// entry around them (landlock-grants.ts). The escapes are the same under both.
describe.skipIf(!status.usable)('escape: hidden paths inside a declared root', () => {
  let home: string;
  let hostEnv: Record<string, string>;
  let wardenHome: string;
  beforeAll(async () => {
    home = await mkdtemp(join(userInfo().homedir, '.warden-hidden-home-'));
    for (const [rel, text] of Object.entries(SECRETS)) {
      await mkdir(join(home, rel, '..'), { recursive: true });
      await writeFile(join(home, rel), `${text}\n`, { mode: 0o600 });
    }
    await writeFile(join(home, 'project/README.md'), 'README-CONTENT\n');
    // A symlink with an innocent name, pointing at a hidden file inside the same root.
    await symlink(join(home, '.ssh/id_ed25519'), join(home, 'project/innocent'));
    // A hidden name pointing outside every root: nothing to mask, and the launch still works.
    await symlink('/nonexistent/elsewhere', join(home, 'project/.env.dangling'));
    // An empty state folder, so that no config of the machine's user changes the guards.
    wardenHome = await mkdtemp(join(tmpdir(), 'warden-hidden-state-'));
    hostEnv = isolatedHostEnv(home, wardenHome);
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(wardenHome, { recursive: true, force: true });
  });

  it('reads the README and none of the secrets, which still exist', async () => {
    const readme = await sh(['--ro', home], `cat ${home}/project/README.md`, hostEnv);
    expect(readme.code).toBe(0);
    expect(readme.stdout).toBe('README-CONTENT\n');
    for (const rel of Object.keys(SECRETS)) {
      const r = await sh(
        ['--ro', home],
        `test -e ${home}/${rel} && echo EXISTS; cat ${home}/${rel}`,
        hostEnv,
      );
      expect(r.stdout, rel).not.toContain(SECRETS[rel]);
      // The masked folders (.ssh, .aws) are empty, so the file is gone; a masked file is empty.
      if (rel.startsWith('project/')) expect(r.stdout, rel).toBe('EXISTS\n');
    }
    const dirs = await sh(['--ro', home], `ls -A ${home}/.ssh ${home}/.aws; echo END`, hostEnv);
    // bubblewrap shows a masked folder empty; Landlock lists its names, and lets none be read.
    if (status.backend === 'bwrap')
      expect(dirs.stdout).toBe(`${home}/.aws:\n\n${home}/.ssh:\nEND\n`);
    else expect(dirs.stdout).toContain(`${home}/.ssh:\nid_ed25519\n`);
  });

  it('reaches no hidden file through a symlink, grep or find', async () => {
    const r = await sh(
      ['--ro', home],
      `cat ${home}/project/innocent; grep -r SECRET ${home} ; find ${home} -type f -exec cat {} +`,
      hostEnv,
    );
    for (const text of Object.values(SECRETS)) expect(r.stdout).not.toContain(text);
    expect(r.stdout).toContain('README-CONTENT');
  });

  it('cannot unmask, replace or write a hidden file in a writable root', async () => {
    const r = await sh(
      ['--rw', home],
      [
        `umount ${home}/project/.env`,
        `rm -f ${home}/project/.env`,
        `mv ${home}/project/.env ${home}/project/moved`,
        `echo OVERWRITE > ${home}/project/.env`,
        `cat ${home}/project/.env ${home}/project/moved`,
        `rmdir ${home}/.ssh`,
        `cat ${home}/.ssh/id_ed25519`,
        'true',
      ].join('; '),
      hostEnv,
    );
    for (const text of Object.values(SECRETS)) expect(r.stdout).not.toContain(text);
    expect(await readFile(join(home, 'project/.env'), 'utf8')).toBe('DOTENV-SECRET\n');
    expect(await readFile(join(home, '.ssh/id_ed25519'), 'utf8')).toBe('SSH-KEY-SECRET\n');
  });

  it('cannot open up a folder of its own that the search could not list, for the .env in it', async () => {
    const locked = join(home, 'project/locked');
    await mkdir(locked);
    await writeFile(join(locked, '.env'), 'LOCKED-DOTENV-SECRET\n', { mode: 0o600 });
    try {
      // Neither listed nor entered; entered but not listed (a name in it opens by itself).
      for (const mode of [0o000, 0o100]) {
        await chmod(locked, mode);
        const r = await sh(
          ['--rw', home],
          [`cat ${locked}/.env`, `chmod 755 ${locked}`, `cat ${locked}/.env`, 'true'].join('; '),
          hostEnv,
        );
        expect(r.stdout, mode.toString(8)).not.toContain('LOCKED-DOTENV-SECRET');
      }
    } finally {
      await chmod(locked, 0o755);
      await rm(locked, { recursive: true, force: true });
    }
  });

  it('hides a .env below a folder whose name is not valid UTF-8 (masked whole)', async () => {
    // Node reads such a name mangled: the search could not reach what is under it.
    const odd = Buffer.concat([Buffer.from(`${home}/project/latin-`), Buffer.from([0xe9])]);
    await mkdir(odd);
    await writeFile(Buffer.concat([odd, Buffer.from('/.env')]), 'LATIN1-DOTENV-SECRET\n');
    try {
      const r = await sh(
        ['--ro', home],
        `cat ${home}/project/latin-*/.env; cat ${home}/project/README.md`,
        hostEnv,
      );
      expect(r.stdout).not.toContain('LATIN1-DOTENV-SECRET');
    } finally {
      await rm(odd, { recursive: true, force: true });
    }
  });

  it('shows one inherited hidden path to a server that names it as an exception', async () => {
    const r = await sh(
      ['--ro', home, '--unhide', '~/.aws'],
      `cat ${home}/.aws/credentials; cat ${home}/.ssh/id_ed25519 ${home}/project/.env`,
      hostEnv,
    );
    expect(r.stdout).toContain('AWS-SECRET');
    expect(r.stdout).not.toContain('SSH-KEY-SECRET');
    expect(r.stdout).not.toContain('DOTENV-SECRET');
  });

  it('hides a path the server adds with --hide', async () => {
    const r = await sh(
      ['--ro', home, '--hide', 'README.md'],
      `cat ${home}/project/README.md`,
      hostEnv,
    );
    expect(r.stdout).not.toContain('README-CONTENT');
  });

  it('refuses a root that lies inside a hidden path', async () => {
    const r = await sh(['--ro', join(home, '.ssh')], 'true', hostEnv);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/inside the hidden path ~\/\.ssh/);
  });
});
