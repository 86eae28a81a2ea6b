import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ENTRY_GRANTS, rootGrants } from './landlock-grants';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-ll-grants-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sorted = (grants: readonly (readonly [string, string])[]) =>
  grants.map(([flag, path]) => `${flag} ${path.slice(dir.length)}`).sort();

describe('the roots as Landlock rules', () => {
  it('grants a read-only root read and a writable one write, whole, when nothing is kept', () => {
    const grants = rootGrants(
      [
        { path: join(dir, 'docs'), access: 'read' },
        { path: join(dir, 'data'), access: 'write' },
      ],
      { kept: [], hidden: [] },
    );
    expect(grants.ok && sorted(grants.value.grants)).toEqual(['--rwn /data', '--rxn /docs']);
    expect(grants.ok && grants.value.closed).toEqual([]);
  });

  it('keeps the way to each kept path read-only and grants the entries around it write', async () => {
    const root = join(dir, 'rw');
    await mkdir(join(root, 'repo', '.git', 'hooks'), { recursive: true });
    await mkdir(join(root, 'repo', 'sub', 'deep', '.vscode'), { recursive: true });
    await mkdir(join(root, 'repo', 'src'));
    await mkdir(join(root, 'other'));
    await writeFile(join(root, 'repo', 'a.txt'), 'a');
    await writeFile(join(root, 'repo', 'sub', 'deep', 'b.txt'), 'b');
    await symlink('/etc', join(root, 'repo', 'link'));
    const grants = rootGrants([{ path: root, access: 'write' }], {
      kept: [
        { path: join(root, 'repo', '.git'), name: '.git' },
        { path: join(root, 'repo', 'sub', 'deep', '.vscode'), name: '.vscode' },
      ],
      hidden: [],
    });
    // No rule for a kept path (it inherits read and execute) nor for a symlink.
    expect(grants.ok && sorted(grants.value.grants)).toEqual([
      '--rwn /rw/other',
      '--rwn /rw/repo/a.txt',
      '--rwn /rw/repo/src',
      '--rwn /rw/repo/sub/deep/b.txt',
      '--rxn /rw',
      '--rxn /rw/repo',
      '--rxn /rw/repo/sub',
      '--rxn /rw/repo/sub/deep',
    ]);
    // The writable folders on the way take no new entry: the launch's audit row names them.
    const closed = grants.ok ? grants.value.closed.map((p) => p.slice(dir.length)) : [];
    expect(closed.sort()).toEqual(['/rw', '/rw/repo', '/rw/repo/sub', '/rw/repo/sub/deep']);
  });

  it('keeps a writable root that lies inside a kept path read-only', () => {
    const grants = rootGrants([{ path: join(dir, 'repo', '.git', 'hooks'), access: 'write' }], {
      kept: [{ path: join(dir, 'repo', '.git'), name: '.git' }],
      hidden: [],
    });
    expect(grants.ok && sorted(grants.value.grants)).toEqual(['--rxn /repo/.git/hooks']);
  });

  it('gives a hidden path nothing, and the folders on the way to it a listing only', async () => {
    const ro = join(dir, 'ro');
    const rw = join(dir, 'rw');
    await mkdir(join(ro, 'app', 'config'), { recursive: true });
    await writeFile(join(ro, 'app', '.env'), 'SECRET=1');
    await writeFile(join(ro, 'app', 'main.js'), '');
    await writeFile(join(ro, 'README.md'), '');
    await mkdir(join(rw, '.vscode'), { recursive: true });
    await mkdir(join(rw, '.aws'), { recursive: true });
    await writeFile(join(rw, '.vscode', '.env'), 'SECRET=2');
    await writeFile(join(rw, '.vscode', 'tasks.json'), '{}');
    await writeFile(join(rw, '.aws', 'config'), '');
    await writeFile(join(rw, 'notes.txt'), '');
    const grants = rootGrants(
      [
        { path: ro, access: 'read' },
        { path: rw, access: 'write' },
      ],
      {
        kept: [{ path: join(rw, '.vscode'), name: '.vscode' }],
        // A hidden folder hides what is in it, however else that is named.
        hidden: [
          join(ro, 'app', '.env'),
          join(rw, '.vscode', '.env'),
          join(rw, '.aws'),
          join(rw, '.aws', 'config'),
        ],
      },
    );
    expect(grants.ok && sorted(grants.value.grants)).toEqual([
      '--lsn /ro',
      '--lsn /ro/app',
      '--lsn /rw',
      '--lsn /rw/.vscode',
      '--rwn /rw/notes.txt',
      '--rxn /ro/README.md',
      '--rxn /ro/app/config',
      '--rxn /ro/app/main.js',
      '--rxn /rw/.vscode/tasks.json',
    ]);
    // Not the read-only root, nor the kept folder: they never took new entries.
    expect(grants.ok && grants.value.closed).toEqual([rw]);
  });

  it('refuses rather than grant more than its limit of entries one by one', async () => {
    const root = join(dir, 'big');
    await mkdir(join(root, '.vscode'), { recursive: true });
    await Promise.all(
      Array.from({ length: MAX_ENTRY_GRANTS + 1 }, (_, i) => writeFile(join(root, `f${i}`), '')),
    );
    const grants = rootGrants([{ path: root, access: 'write' }], {
      kept: [{ path: join(root, '.vscode'), name: '.vscode' }],
      hidden: [],
    });
    expect(grants.ok).toBe(false);
    if (grants.ok) return;
    expect(grants.error.message).toContain(`more than ${MAX_ENTRY_GRANTS}`);
    expect(grants.error.remedy).toContain('--unprotect .vscode');
  });

  it('counts the folders on the way against the limit too', () => {
    const root = join(dir, 'deep');
    const hidden = Array.from({ length: MAX_ENTRY_GRANTS + 1 }, (_, i) =>
      join(root, `d${i}`, '.env'),
    );
    const grants = rootGrants([{ path: root, access: 'read' }], { kept: [], hidden }, () => []);
    expect(grants.ok).toBe(false);
    if (grants.ok) return;
    expect(grants.error.message).toContain(`more than ${MAX_ENTRY_GRANTS}`);
    expect(grants.error.remedy).not.toContain('--unprotect');
  });

  it('refuses when a folder on the way cannot be listed, and says why', () => {
    const root = join(dir, 'locked');
    const grants = rootGrants(
      [{ path: root, access: 'write' }],
      { kept: [{ path: join(root, '.git'), name: '.git' }], hidden: [] },
      () => {
        throw Object.assign(new Error('denied'), { code: 'EACCES' });
      },
    );
    expect(grants.ok).toBe(false);
    if (grants.ok) return;
    expect(grants.error.kind).toBe('root-invalid');
    expect(grants.error.message).toContain(
      `${root} holds a path the sandbox keeps read-only or hides`,
    );
    expect(grants.error.message).toContain('(EACCES)');
  });
});
