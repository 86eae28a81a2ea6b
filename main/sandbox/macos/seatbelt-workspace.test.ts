/**
 * The Seatbelt profile's workspace files: below a root the server may write, the names a policy
 * keeps (app/policy/workspace-files.ts) are read-only at any depth, created or not, whatever the
 * case of their letters; a git folder a `.git` file names elsewhere is kept by its path.
 */
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../app/policy/defaults';
import type { Policy } from '../../../app/policy/policy-schema';
import { WORKSPACE_NAMES } from '../../../app/policy/workspace-files';
import type { LaunchPlan } from '../backend';
import { type Request, evaluate, parseSbpl, referencedParams } from './sbpl-eval.test-helper';
import { SANDBOX_EXEC, seatbeltBackend } from './seatbelt-backend';
import { buildSeatbeltProfile } from './seatbelt-profile';
import { caselessRegex } from './seatbelt-rules';

const WRITES = ['file-write-data', 'file-write-create', 'file-write-unlink'] as const;
let dir: string;
let root: string;
let docs: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'warden-seatbelt-workspace-')));
  root = join(dir, 'work');
  docs = join(dir, 'docs');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(join(root, 'sub', '.git', 'objects', 'ab'), { recursive: true });
  await mkdir(join(root, 'sub', '.git', 'hooks'), { recursive: true });
  await writeFile(join(root, 'sub', '.git', 'config'), '[core]\n');
  // A worktree: its `.git` is a file naming a git folder that no workspace name reaches.
  await mkdir(join(root, 'gitdirs', 'wt'), { recursive: true });
  await mkdir(join(root, 'wt'), { recursive: true });
  await writeFile(join(root, 'wt', '.git'), `gitdir: ${join(root, 'gitdirs', 'wt')}\n`);
  await mkdir(join(docs, '.vscode'), { recursive: true });
  await mkdir(join(dir, 'home'));
  await mkdir(join(dir, 'instance'));
});

/** The profile text and its -D parameters, as the backend builds them for `change`'s policy. */
async function compiled(change: (p: Policy) => void) {
  const policy = defaultPolicy();
  change(policy);
  const backend = seatbeltBackend({
    userHome: join(dir, 'home'),
    available: () => Promise.resolve(true),
  });
  const plan = await backend.compile(
    policy,
    { command: '/bin/echo', args: [] },
    {
      instanceDir: join(dir, 'instance'),
      hostEnv: { PATH: '/usr/bin:/bin', HOME: join(dir, 'home') },
      secrets: {},
    },
  );
  if (!plan.ok) throw new Error(plan.error.message);
  return parts(plan.value);
}

function parts(plan: LaunchPlan) {
  const rest = plan.argv.slice(plan.argv.indexOf(SANDBOX_EXEC) + 1);
  const params: Record<string, string> = {};
  for (let i = 2; rest[i] === '-D'; i += 2) {
    const [name, ...value] = (rest[i + 1] ?? '').split('=');
    params[name!] = value.join('=');
  }
  const text = rest[1]!;
  return { text, params, can: (r: Request) => evaluate(text, params, r) };
}

const both = (p: Policy) => {
  p.filesystem.roots = [
    { path: root, access: 'write' },
    { path: docs, access: 'read' },
  ];
};

describe('caselessRegex', () => {
  it('matches a name whatever the case of its letters, and only that name', () => {
    expect(caselessRegex('.vscode')).toBe('\\.[vV][sS][cC][oO][dD][eE]');
    expect(caselessRegex('.bash_profile')).toBe('\\.[bB][aA][sS][hH]_[pP][rR][oO][fF][iI][lL][eE]');
    const re = new RegExp(`^${caselessRegex('.yarnrc.yml')}$`);
    for (const name of ['.yarnrc.yml', '.YARNRC.YML', '.YarnRC.yml'])
      expect(re.test(name)).toBe(true);
    for (const name of ['xyarnrc.yml', '.yarnrcxyml', '.yarnrc.ymlx'])
      expect(re.test(name)).toBe(false);
  });

  it('refuses a name that could break out of its regex', () => {
    for (const name of ['a"b', 'a/b', 'a(b', 'a b', '', 'a\\b']) {
      expect(() => caselessRegex(name), name).toThrow();
    }
  });
});

describe('Seatbelt profile: workspace files below a writable root', () => {
  it('denies writing, creating and removing them, at any depth and in any case', async () => {
    const p = await compiled(both);
    expect(() => parseSbpl(p.text)).not.toThrow();
    expect(new Set(referencedParams(p.text))).toEqual(new Set(Object.keys(p.params)));
    expect(p.text).not.toContain(dir);
    for (const path of [
      '.vscode/tasks.json',
      '.vscode',
      'a/b/.vscode',
      '.VSCode/x',
      'sub/.git/hooks/pre-commit',
      'sub/.git/config',
      'sub/.git/commondir',
      'sub/.git/objects/ab/cd',
      '.mcp.json',
      'sub/.Mcp.JSON',
      'deep/er/.envrc',
      '.claude/settings.json',
    ]) {
      for (const op of WRITES)
        expect(p.can({ op, path: join(root, path) }), `${op} ${path}`).toBe(false);
    }
  });

  it('keeps each .git in place: not moved aside, replaced, nor planted anew', async () => {
    const p = await compiled(both);
    expect(p.can({ op: 'file-write-unlink', path: join(root, 'sub', '.git') })).toBe(false);
    // A `.git` file (a worktree's pointer) is the path itself.
    expect(p.can({ op: 'file-write-data', path: join(root, 'wt', '.git') })).toBe(false);
    // A folder renamed to `.git`, a symlink or a pointer file so named: each creates that path.
    expect(p.can({ op: 'file-write-create', path: join(root, 'new', '.git') })).toBe(false);
    // Nor the folder that holds one: moved aside (into node_modules, say), the repository would
    // leave the names' reach, and a copy could take its place.
    expect(p.can({ op: 'file-write-unlink', path: join(root, 'sub') })).toBe(false);
    expect(p.can({ op: 'file-write-unlink', path: join(root, 'src') })).toBe(true);
  });

  it('keeps by path the git folder a .git file names, and the folders holding it', async () => {
    const p = await compiled(both);
    const gitDir = join(root, 'gitdirs', 'wt');
    expect(Object.values(p.params)).toContain(gitDir);
    for (const op of WRITES) expect(p.can({ op, path: join(gitDir, 'config') }), op).toBe(false);
    expect(p.can({ op: 'file-write-unlink', path: join(root, 'gitdirs') })).toBe(false);
    expect(p.can({ op: 'file-write-data', path: join(root, 'gitdirs', 'notes.txt') })).toBe(true);
  });

  it('writes the rest of the folder, and names that only look alike', async () => {
    const p = await compiled(both);
    for (const path of ['src/a.ts', '.vscodex/a', 'x.vscode', 'sub/git/config', 'a.mcp.json']) {
      for (const op of WRITES)
        expect(p.can({ op, path: join(root, path) }), `${op} ${path}`).toBe(true);
    }
  });

  it('writes them in an installed package (node_modules), which an install must replace', async () => {
    const p = await compiled(both);
    for (const path of [
      'node_modules/pkg/.idea/x',
      'a/Node_Modules/pkg/.vscode',
      'node_modules/.git',
    ]) {
      for (const op of WRITES)
        expect(p.can({ op, path: join(root, path) }), `${op} ${path}`).toBe(true);
    }
    expect(
      p.can({ op: 'file-write-data', path: join(root, 'node_modules.vscode/.vscode/x') }),
    ).toBe(false);
  });

  it('writes what the policy excepts, and keeps the rest', async () => {
    const p = await compiled((p) => {
      both(p);
      p.guards = { hide: [], unhide: [], unprotect: ['.vscode', '.git'] };
    });
    for (const path of ['.vscode/tasks.json', 'sub/.git/config', 'sub/.git/hooks/pre-commit']) {
      expect(p.can({ op: 'file-write-data', path: join(root, path) }), path).toBe(true);
    }
    expect(p.can({ op: 'file-write-unlink', path: join(root, 'sub', '.git') })).toBe(true);
    expect(p.can({ op: 'file-write-data', path: join(root, '.mcp.json') })).toBe(false);
    expect(p.can({ op: 'file-write-create', path: join(root, '.idea') })).toBe(false);
    expect(Object.values(p.params)).not.toContain(join(root, 'gitdirs', 'wt'));
  });

  it('adds nothing where no root is writable', async () => {
    const readOnly = (p: Policy) => (p.filesystem.roots = [{ path: docs, access: 'read' }]);
    const kept = await compiled(readOnly);
    const excepted = await compiled((p) => {
      readOnly(p);
      p.guards = { hide: [], unhide: [], unprotect: [...WORKSPACE_NAMES] };
    });
    expect(kept.text).toBe(excepted.text);
    expect(kept.text).not.toContain('regex');
    expect(kept.can({ op: 'file-read-data', path: join(docs, '.vscode', 'x') })).toBe(true);
    expect(kept.can({ op: 'file-write-data', path: join(docs, 'x') })).toBe(false);
  });
});

describe('Seatbelt profile: the writable root itself', () => {
  const base = {
    tag: 'mcpwarden-0123456789abcdef',
    privateDir: '/private/var/folders/xy/warden/instance-1',
    protectedPaths: [],
  };

  it('counts only the components below the root, whatever the root is named', () => {
    const profile = buildSeatbeltProfile({
      ...base,
      roots: [{ path: '/Users/ada/.claude/skills', access: 'write' }],
    });
    const params = Object.fromEntries(profile.params);
    const can = (path: string) => evaluate(profile.text, params, { op: 'file-write-data', path });
    expect(can('/Users/ada/.claude/skills/tool/run.sh')).toBe(true);
    expect(can('/Users/ada/.claude/skills/tool/.claude/settings.json')).toBe(false);
    expect(can('/Users/ada/.claude/settings.json')).toBe(false);
  });

  it('keeps the names below / too, and below a deeper writable root', () => {
    const profile = buildSeatbeltProfile({
      ...base,
      roots: [
        { path: '/', access: 'write' },
        { path: '/Users/ada/project/.vscode', access: 'write' },
      ],
    });
    const params = Object.fromEntries(profile.params);
    const can = (path: string) => evaluate(profile.text, params, { op: 'file-write-data', path });
    expect(can('/.envrc')).toBe(false);
    expect(can('/Users/ada/project/src/a.ts')).toBe(true);
    // Declared writable itself, it is still a workspace file below `/`, as on Linux.
    expect(can('/Users/ada/project/.vscode/tasks.json')).toBe(false);
  });
});
