/**
 * Escape suite, new workspace files: a server that may write a folder with no repository, editor
 * or AI client settings in it creates them (bubblewrap and Landlock cannot keep a name from being
 * created), so that the user's own git, Claude Code or editor runs its code later, outside any
 * sandbox. Warden watches the folder: the server is stopped at once and what it made is moved
 * aside. The control puts the planted repository back and sees the user's git run its command.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWarden } from '../helpers/warden-bin';
import { type Fixture, makeFixture, sandboxStatus, sh } from './harness';

const status = await sandboxStatus();
const built = existsSync(join(import.meta.dirname, '..', '..', 'out', 'cli', 'warden.mjs'));

describe.skipIf(!status.usable)(`escape: new workspace files (${status.backend})`, () => {
  let f: Fixture;
  let proj: string;
  const marker = () => join(f.outside, 'fsmonitor-ran');
  const exists = (p: string) =>
    stat(p).then(
      () => true,
      () => false,
    );
  beforeAll(async () => {
    f = await makeFixture();
    proj = join(f.base, 'proj');
    await mkdir(proj);
  });
  afterAll(() => f.cleanup());

  it("stops a server that plants a repository, before the user's git runs its command", async () => {
    // Copied first into node_modules (not watched; a copy elsewhere is a bare repository, which
    // is caught as such), then moved into place whole, fsmonitor included.
    const r = await sh(
      ['--rw', proj],
      // (the sandbox's TMPDIR: Landlock's is not /tmp)
      `git init -q $TMPDIR/r && git -C $TMPDIR/r config core.fsmonitor 'touch ${marker()}' && ` +
        `mkdir -p ${proj}/app ${proj}/node_modules && cp -r $TMPDIR/r/.git ${proj}/node_modules/x && ` +
        `echo COPIED && sleep 0.5 && mv ${proj}/node_modules/x ${proj}/app/.git && echo MOVED; ` +
        `sleep 5; echo ALIVE`,
      f.hostEnv,
    );
    expect(r.stdout).toContain('COPIED');
    expect(r.stdout).not.toContain('ALIVE');
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/stopped: it created \S*\/app\/\.git, a workspace file/);
    expect(r.stderr).toMatch(/moved aside to \S*\/app\/\.git\.moved-by-warden-/);
    const app = join(proj, 'app');
    const aside = (await readdir(app)).find((n) => n.startsWith('.git.moved-by-warden-'));
    expect(aside).toBeDefined();
    expect(await readdir(app)).not.toContain('.git');
    // The user's git there, outside any sandbox, finds no repository and runs nothing.
    const git = spawnSync('git', ['-C', app, 'status'], { encoding: 'utf8' });
    expect(git.stderr).toMatch(/not a git repository/);
    expect(await exists(marker())).toBe(false);
    // The control: put back, the planted repository runs its command in the user's git.
    await rename(join(app, aside!), join(app, '.git'));
    execFileSync('git', ['-C', app, 'status'], { stdio: 'ignore' });
    expect(await exists(marker())).toBe(true);
    // (a repository in the folder would make the Landlock sandbox refuse the next tests)
    await rm(app, { recursive: true });
  });

  it('stops a server that creates AI client settings where there were none', async () => {
    const r = await sh(
      ['--rw', proj],
      `mkdir ${proj}/.claude && echo '{"hooks":{}}' > ${proj}/.claude/settings.json && ` +
        `echo MADE; sleep 5; echo ALIVE`,
      f.hostEnv,
    );
    expect(r.stdout).not.toContain('ALIVE');
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/stopped: it created \S*\/proj\/\.claude, a workspace file/);
    expect(r.stderr).toMatch(/--unprotect \.claude/);
    expect(await readdir(proj)).not.toContain('.claude');
  });

  it('stops a server that plants one named in other letters (a case-insensitive disk finds it)', async () => {
    const r = await sh(
      ['--rw', proj],
      `mkdir -p ${proj}/lib/.GIT && echo MADE; sleep 5; echo ALIVE`,
      f.hostEnv,
    );
    expect(r.stdout).not.toContain('ALIVE');
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/stopped: it created \S*\/lib\/\.GIT, a workspace file/);
    expect(r.stderr).toMatch(/--unprotect \.git\b/);
    expect(await readdir(join(proj, 'lib'))).not.toContain('.GIT');
    await rm(join(proj, 'lib'), { recursive: true });
  });

  it('leaves no daemon of the stopped server to plant one after the sweep', async () => {
    const r = await sh(
      ['--rw', proj],
      `cd ${proj} && (setsid sh -c 'sleep 2; mkdir -p late/.git; echo DAEMON > late.txt' ` +
        `</dev/null >/dev/null 2>&1 &); sleep 0.3; mkdir .idea; sleep 5`,
      f.hostEnv,
    );
    expect(r.code).toBe(125);
    await new Promise((done) => setTimeout(done, 3000));
    expect(await exists(join(proj, 'late.txt'))).toBe(false);
    expect(await exists(join(proj, 'late'))).toBe(false);
    for (const name of await readdir(proj)) {
      if (name.startsWith('.idea.moved')) await rm(join(proj, name), { recursive: true });
    }
  }, 15_000);

  it('leaves no process of a deep chain alive after a stop at once (the wall-time limit)', async () => {
    const chain = join(f.base, 'chain.sh');
    await writeFile(
      chain,
      `n=$1\nif [ "$n" -gt 0 ]; then sh ${chain} $((n-1)) & exec sleep 30; fi\n` +
        `sleep 3; mkdir -p ${proj}/deep-late/.idea\n`,
      { mode: 0o755 },
    );
    const r = await sh(['--rw', proj, '--ro', chain, '--wall', '1'], `sh ${chain} 30`, f.hostEnv);
    expect(r.code).toBe(124);
    await new Promise((done) => setTimeout(done, 4000));
    expect(await exists(join(proj, 'deep-late'))).toBe(false);
  }, 20_000);

  it.runIf(built)(
    'sweeps at the exit of the CLI even with a sweep waiting its turn',
    async () => {
      // A flood turns the watch to sweeps, the next one waiting; the server then plants and exits.
      const r = await runWarden(
        [
          'exec',
          '--rw',
          proj,
          '--',
          '/bin/sh',
          '-c',
          `mkdir ${proj}/flood && cd ${proj}/flood && seq 1 6000 | xargs touch && ` +
            `mkdir ${proj}/.cursor && exit 3`,
        ],
        f.hostEnv,
      );
      expect(r.stderr).toMatch(/stopped: it created \S*\/proj\/\.cursor, a workspace file/);
      expect(r.code).toBe(125);
      expect(await readdir(proj)).not.toContain('.cursor');
      await rm(join(proj, 'flood'), { recursive: true });
      for (const name of await readdir(proj)) {
        if (name.startsWith('.cursor.moved')) await rm(join(proj, name), { recursive: true });
      }
    },
    30_000,
  );

  it('runs a server that writes anything else there as before', async () => {
    const r = await sh(
      ['--rw', proj],
      `mkdir -p ${proj}/src/.github && echo x > ${proj}/src/plain.txt && echo OK`,
      f.hostEnv,
    );
    expect(r.stderr).not.toMatch(/stopped/);
    expect(r.stdout).toBe('OK\n');
    expect(r.code).toBe(0);
    expect(await readFile(join(proj, 'src', 'plain.txt'), 'utf8')).toBe('x\n');
  });

  it('stops a server that fills a dangling symlink so named that was there before', async () => {
    const dir = join(proj, 'linked');
    await mkdir(dir);
    await symlink(join(dir, 'settings'), join(dir, '.claude'));
    const ran = await sh(['--rw', proj], `ls -a ${dir} && echo RAN`, f.hostEnv);
    expect(ran.stdout).toContain('RAN');
    expect(ran.code).toBe(0);
    const r = await sh(
      ['--rw', proj],
      `mkdir ${dir}/settings && echo '{"hooks":{}}' > ${dir}/settings/settings.json && ` +
        `echo MADE; sleep 5; echo ALIVE`,
      f.hostEnv,
    );
    expect(r.stdout).not.toContain('ALIVE');
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/stopped: it created \S*\/linked\/\.claude, a workspace file/);
    expect(await readdir(dir)).not.toContain('.claude');
    await rm(dir, { recursive: true });
  });

  it('lets a server create one the policy excepts', async () => {
    const r = await sh(
      ['--rw', proj, '--unprotect', '.vscode'],
      `mkdir ${proj}/.vscode && echo '{}' > ${proj}/.vscode/tasks.json && echo OK`,
      f.hostEnv,
    );
    expect(r.stdout).toBe('OK\n');
    expect(r.code).toBe(0);
    expect(await readdir(proj)).toContain('.vscode');
  });
});
