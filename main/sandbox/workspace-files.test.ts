/**
 * Which workspace files a launch keeps read-only: those found by name at any depth below a root
 * the server may write, not those below a read-only root, not those the policy excepts, not those
 * inside a masked folder; a `.git` file with the git folder it names; a symlink so named left
 * alone, and one on the way to a named git folder refused. A `.env` inside a kept folder is still
 * found and masked.
 */
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { findPolicyPaths } from './policy-paths';

let base: string;
const env = { hostEnv: { HOME: '/nonexistent-home' } };

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'warden-workspace-')));
  for (const dir of ['rw/repo/.git/hooks', 'rw/repo/sub/deep/.vscode', 'rw/.claude', 'ro/.git']) {
    await mkdir(join(base, dir), { recursive: true });
  }
  await writeFile(join(base, 'rw/repo/.git/config'), '[core]\n');
  await writeFile(join(base, 'rw/repo/.mcp.json'), '{}');
  await writeFile(join(base, 'rw/.claude/.env'), 'S=1');
  await writeFile(join(base, 'rw/repo/.envrcx'), 'not a workspace name');
  await mkdir(join(base, 'rw/repo/node_modules/pkg/.idea'), { recursive: true });
});
afterEach(() => rm(base, { recursive: true, force: true }));

const policyWith = (guards?: Policy['guards']): Policy => ({
  ...defaultPolicy(),
  filesystem: {
    roots: [
      { path: join(base, 'rw'), access: 'write' },
      { path: join(base, 'ro'), access: 'read' },
    ],
  },
  ...(guards && { guards }),
});

async function found(policy: Policy) {
  const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
  const r = await findPolicyPaths(roots, policy, env);
  if (!r.ok) throw new Error(r.error.message);
  return {
    kept: r.value.workspace.map((t) => t.path.slice(base.length + 1)).sort(),
    hidden: r.value.hidden.map((t) => t.path.slice(base.length + 1)).sort(),
  };
}

describe('workspace files kept read-only', () => {
  it('keeps those below a writable root at any depth, not those below a read-only one', async () => {
    const r = await found(policyWith());
    expect(r.kept).toEqual([
      'rw/.claude',
      'rw/repo/.git',
      'rw/repo/.mcp.json',
      'rw/repo/sub/deep/.vscode',
    ]);
    // The .env inside the kept .claude folder is still masked.
    expect(r.hidden).toEqual(['rw/.claude/.env']);
  });

  it('keeps one named in other letters, which a case-insensitive file system finds as such', async () => {
    await mkdir(join(base, 'rw/other/.GIT/hooks'), { recursive: true });
    await writeFile(join(base, 'rw/other/.GIT/HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(base, 'rw/other/Lefthook.YML'), 'pre-commit: {}\n');
    await writeFile(join(base, 'rw/other/.ENV'), 'SECRET=1\n');
    const policy = policyWith();
    const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
    const r = await findPolicyPaths(roots, policy, env);
    if (!r.ok) throw new Error(r.error.message);
    const kept = r.value.workspace.map((t) => [t.path.slice(base.length + 1), t.name]);
    expect(kept).toEqual(
      expect.arrayContaining([
        ['rw/other/.GIT', '.git'],
        ['rw/other/Lefthook.YML', 'lefthook.yml'],
      ]),
    );
    // A hidden name too: the `.env` a program there opens is this file.
    expect(r.value.hidden.map((t) => t.path.slice(base.length + 1))).toContain('rw/other/.ENV');
  });

  it('leaves out what lies in an installed package (node_modules), unless the root is in one', async () => {
    expect((await found(policyWith())).kept).not.toContain('rw/repo/node_modules/pkg/.idea');
    const inside: Policy = {
      ...policyWith(),
      filesystem: { roots: [{ path: join(base, 'rw/repo/node_modules/pkg'), access: 'write' }] },
    };
    expect((await found(inside)).kept).toEqual(['rw/repo/node_modules/pkg/.idea']);
  });

  it('leaves out what the policy excepts, and keeps nothing without a writable root', async () => {
    const r = await found(policyWith({ hide: [], unhide: [], unprotect: ['.git', '.vscode'] }));
    expect(r.kept).toEqual(['rw/.claude', 'rw/repo/.mcp.json']);
    const readOnly: Policy = {
      ...policyWith(),
      filesystem: { roots: [{ path: join(base, 'rw'), access: 'read' }] },
    };
    expect((await found(readOnly)).kept).toEqual([]);
  });

  it('leaves out what lies inside a hidden folder (masked whole)', async () => {
    const r = await found(policyWith({ hide: ['sub'], unhide: [] }));
    expect(r.kept).not.toContain('rw/repo/sub/deep/.vscode');
    expect(r.hidden).toContain('rw/repo/sub');
  });

  it('keeps a .git file with the git folder it names, when that lies in a writable root', async () => {
    await mkdir(join(base, 'rw/modules/wt'), { recursive: true });
    await mkdir(join(base, 'rw/work'));
    await writeFile(join(base, 'rw/work/.git'), `gitdir: ../modules/wt\n`);
    await mkdir(join(base, 'ro/elsewhere'));
    await mkdir(join(base, 'rw/other'));
    await writeFile(join(base, 'rw/other/.git'), `gitdir: ${join(base, 'ro/elsewhere')}\n`);
    const r = await found(policyWith());
    expect(r.kept).toContain('rw/work/.git');
    expect(r.kept).toContain('rw/modules/wt');
    expect(r.kept).toContain('rw/other/.git');
    expect(r.kept).not.toContain('ro/elsewhere');
  });

  it('refuses a .git file that names its folder through a symlink the server may re-point', async () => {
    await mkdir(join(base, 'rw/modules/wt'), { recursive: true });
    await symlink(join(base, 'rw/modules'), join(base, 'rw/link'));
    await mkdir(join(base, 'rw/work'));
    await writeFile(join(base, 'rw/work/.git'), `gitdir: ../link/wt\n`);
    const policy = policyWith();
    const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
    const r = await findPolicyPaths(roots, policy, env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/through the symlink .*rw\/link/);
  });

  // Root lists any folder whatever its mode: run as another user (the sandbox suite does).
  it.skipIf(process.getuid?.() === 0)('masks whole a .git folder it cannot list', async () => {
    await chmod(join(base, 'rw/repo/.git'), 0o100);
    try {
      const r = await found(policyWith());
      expect(r.hidden).toContain('rw/repo/.git');
      expect(r.kept).not.toContain('rw/repo/.git');
    } finally {
      await chmod(join(base, 'rw/repo/.git'), 0o755);
    }
  });

  it('refuses a symlink so named (the server could re-point or replace it)', async () => {
    await mkdir(join(base, 'rw/real-settings'));
    await symlink(join(base, 'rw/real-settings'), join(base, 'rw/.vscode'));
    const policy = policyWith();
    const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
    const r = await findPolicyPaths(roots, policy, env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/rw\/\.vscode is a symlink/);
  });

  it('keeps what git reads through a repository: its commondir, hooks folder and includes', async () => {
    // A bare repository with a worktree: the worktree's .git names proj.git/worktrees/main,
    // whose commondir (../..) holds the config and hooks.
    await mkdir(join(base, 'rw/proj.git/worktrees/main'), { recursive: true });
    await writeFile(join(base, 'rw/proj.git/worktrees/main/commondir'), '../..\n');
    await mkdir(join(base, 'rw/main'));
    await writeFile(
      join(base, 'rw/main/.git'),
      `gitdir: ${join(base, 'rw/proj.git/worktrees/main')}\n`,
    );
    // The repo's config names a hooks folder in the worktree and a config to include.
    await mkdir(join(base, 'rw/repo/.githooks'));
    await writeFile(join(base, 'rw/repo/shared.gitconfig'), '[core]\n');
    await writeFile(
      join(base, 'rw/repo/.git/config'),
      '[core]\n\thooksPath = .githooks\n[include]\n\tpath = "../shared.gitconfig" ; shared\n',
    );
    const r = await found(policyWith());
    expect(r.kept).toEqual(
      expect.arrayContaining([
        'rw/main/.git',
        'rw/proj.git',
        'rw/repo/.githooks',
        'rw/repo/shared.gitconfig',
      ]),
    );
    expect(r.kept).not.toContain('rw/proj.git/worktrees/main');
  });

  it("keeps the user's own git configs and what they name, when they lie in a writable root", async () => {
    const home = join(base, 'rw');
    await mkdir(join(home, '.config/git'), { recursive: true });
    await mkdir(join(home, 'hooks'));
    await writeFile(join(home, '.gitconfig'), '[core]\n\thooksPath = ~/hooks\n');
    await writeFile(join(home, '.config/git/config'), '[user]\n\tname = u\n');
    const keptBy = async (policy: Policy) => {
      const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
      const r = await findPolicyPaths(roots, policy, { hostEnv: { HOME: home } });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.workspace.map((t) => t.path.slice(base.length + 1));
    };
    // `.config` is itself a workspace name, kept whole: excepted, git's config in it still is.
    expect(await keptBy(policyWith({ hide: [], unhide: [], unprotect: ['.config'] }))).toEqual(
      expect.arrayContaining(['rw/.gitconfig', 'rw/hooks', 'rw/.config/git/config']),
    );
    expect(await keptBy(policyWith())).toEqual(
      expect.arrayContaining(['rw/.gitconfig', 'rw/hooks', 'rw/.config']),
    );
  });

  it('refuses a repository whose commondir runs through a symlink the server may re-point', async () => {
    await mkdir(join(base, 'rw/store'), { recursive: true });
    await symlink(join(base, 'rw/store'), join(base, 'rw/link'));
    await writeFile(join(base, 'rw/repo/.git/commondir'), `${join(base, 'rw/link')}\n`);
    const policy = policyWith();
    const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
    const r = await findPolicyPaths(roots, policy, env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/commondir names .* through the symlink/);
  });

  it('reads the repository above a writable root, or in a read-only one, for what it names there', async () => {
    const outer = join(base, 'outer');
    await mkdir(join(outer, '.git', 'hooks'), { recursive: true });
    await mkdir(join(outer, 'tools', 'hooks'), { recursive: true });
    await writeFile(join(outer, 'tools', 'git.cfg'), '');
    await writeFile(
      join(outer, '.git', 'config'),
      '[core]\n\thooksPath = tools/hooks\n[include]\n\tpath = ../tools/git.cfg\n',
    );
    const tools = { path: join(outer, 'tools'), access: 'write' as const };
    for (const roots of [[tools], [{ path: outer, access: 'read' as const }, tools]]) {
      const policy: Policy = { ...defaultPolicy(), filesystem: { roots } };
      const r = await findPolicyPaths(roots, policy, env);
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.workspace.map((t) => t.path).sort()).toEqual([
        join(outer, 'tools', 'git.cfg'),
        join(outer, 'tools', 'hooks'),
      ]);
    }
  });

  it('refuses a hooks folder or include a repository names that is missing in a writable root', async () => {
    await writeFile(join(base, 'rw/repo/.git/config'), '[core]\n\thooksPath = .githooks\n');
    const policy = policyWith();
    const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
    const r = await findPolicyPaths(roots, policy, env);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).toMatch(/names .*rw\/repo\/\.githooks, which does not exist/);
      expect(r.error.remedy).toMatch(/create it \(an empty folder\)/);
    }
  });

  it('keeps a bare repository, not one inside node_modules, and passes over a dangling .git link', async () => {
    for (const bare of ['rw/remote.git', 'rw/repo/node_modules/dep/.git']) {
      await mkdir(join(base, bare, 'objects'), { recursive: true });
      await mkdir(join(base, bare, 'refs'));
      await writeFile(join(base, bare, 'HEAD'), 'ref: refs/heads/main\n');
    }
    await mkdir(join(base, 'rw/junk'));
    await symlink(join(base, 'rw/nowhere'), join(base, 'rw/junk/.git'));
    const r = await found(policyWith());
    expect(r.kept).toContain('rw/remote.git');
    expect(r.kept.filter((k) => k.includes('node_modules'))).toEqual([]);
  });

  it("applies the user's relative hooks path and a repository's core.worktree", async () => {
    const home = join(base, 'home');
    await mkdir(join(home, '.config', 'git'), { recursive: true });
    await writeFile(join(home, '.config', 'git', 'config'), '[core]\n\thooksPath = .githooks\n');
    await mkdir(join(base, 'rw/repo/.githooks'));
    await mkdir(join(base, 'rw/repo/src/.githooks'), { recursive: true });
    await mkdir(join(base, 'rw/other/.git'), { recursive: true });
    await writeFile(join(base, 'rw/other/.git/config'), '[core]\n\tworktree = ../../repo/src\n');
    const policy = policyWith();
    const roots = policy.filesystem.roots.map((r) => ({ path: r.path, access: r.access }));
    const r = await findPolicyPaths(roots, policy, { hostEnv: { HOME: home } });
    if (!r.ok) throw new Error(r.error.message);
    const kept = r.value.workspace.map((t) => t.path.slice(base.length + 1));
    expect(kept).toEqual(expect.arrayContaining(['rw/repo/.githooks', 'rw/repo/src/.githooks']));
  });
});
