/**
 * A declared hidden path or Warden's state folder reached through a symlink in a folder the server
 * may write is refused: the server could re-point the symlink, and a later launch would hide what
 * it then points at while the real folder showed (or read a state folder the server made). The
 * same symlink in a read-only root, or above every root, is followed as before.
 */
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { findProtectedTargets, pinnedFolders } from './linux/filesystem-view';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-repoint-'));
  // Dotfiles kept in a folder of their own, linked into place.
  await mkdir(join(home, 'dotfiles', 'config', 'gh'), { recursive: true });
  await writeFile(join(home, 'dotfiles', 'config', 'gh', 'hosts.yml'), 'token: S');
  await mkdir(join(home, 'dotfiles', 'config', 'mcp-warden'));
  await symlink(join(home, 'dotfiles', 'config'), join(home, '.config'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe('a hidden path reached through a symlink', () => {
  it('is refused when the symlink lies in a root the server may write', async () => {
    const r = await findHiddenTargets([home], ['~/.config/gh'], home, undefined, {
      writable: [home],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('root-invalid');
    expect(r.error.message).toContain(`through the symlink ${join(home, '.config')}`);
    expect(r.error.remedy).toContain('read-only');
  });

  it('is masked at its real path when that root is read-only', async () => {
    const r = await findHiddenTargets([home], ['~/.config/gh'], home, undefined, { writable: [] });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toEqual([
      { path: join(home, 'dotfiles', 'config', 'gh'), directory: true, byPath: true },
    ]);
  });

  it('is masked when the symlink lies above every root the server may write', async () => {
    const dotfiles = join(home, 'dotfiles');
    const r = await findHiddenTargets([dotfiles], ['~/.config/gh'], home, undefined, {
      writable: [dotfiles],
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.map((t) => t.path)).toEqual([join(dotfiles, 'config', 'gh')]);
  });
});

describe("Warden's state folder reached through a symlink", () => {
  const state = () => join(home, '.config', 'mcp-warden');

  it('is refused when the symlink lies in a root the server may write', async () => {
    const r = await findProtectedTargets([{ path: home, access: 'write' }], [state()]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain(`through the symlink ${join(home, '.config')}`);
  });

  it('is masked at its real path when that root is read-only', async () => {
    const r = await findProtectedTargets([{ path: home, access: 'read' }], [state()]);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toEqual([
      { path: join(home, 'dotfiles', 'config', 'mcp-warden'), directory: true, byPath: true },
    ]);
  });
});

describe('a symlink reached through another one', () => {
  it('is looked at too: one in a writable root behind one that is not is refused', async () => {
    // ~/.config → ~/w/current (a symlink in the writable root) → ~/w/config-v2.
    const w = join(home, 'w');
    await mkdir(join(w, 'config-v2', 'gh'), { recursive: true });
    await symlink(join(w, 'config-v2'), join(w, 'current'));
    await rm(join(home, '.config'));
    await symlink(join(w, 'current'), join(home, '.config'));
    const r = await findHiddenTargets([home], ['~/.config/gh'], home, undefined, {
      writable: [w],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain(`through the symlink ${join(w, 'current')}`);
  });
});

describe('a .env that is a symlink', () => {
  beforeEach(async () => {
    await mkdir(join(home, 'app', 'config'), { recursive: true });
    await writeFile(join(home, 'app', 'config', 'prod.secrets'), 'S=1');
    await symlink('config/prod.secrets', join(home, 'app', '.env'));
  });

  it('is refused in a writable root: re-pointed, it would leave its file unmasked', async () => {
    const r = await findHiddenTargets([home], ['.env'], home, undefined, { writable: [home] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain(`through the symlink ${join(home, 'app', '.env')}`);
  });

  it('masks the file it points to in a read-only root', async () => {
    const r = await findHiddenTargets([home], ['.env'], home, undefined, { writable: [] });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toEqual([
      { path: join(home, 'app', 'config', 'prod.secrets'), directory: false },
    ]);
  });
});

describe('pins under a folder declared twice', () => {
  const target = { path: '/h/.config/gh', directory: true, byPath: true as const };

  it('follow the later declaration, as bubblewrap binds it last', () => {
    const twice = (first: 'read' | 'write', then: 'read' | 'write') =>
      pinnedFolders(
        [
          { path: '/h', access: first },
          { path: '/h', access: then },
        ],
        [target],
      );
    expect(twice('write', 'read')).toEqual([]);
    expect(twice('read', 'write')).toEqual(['/h/.config']);
  });
});

describe.skipIf(process.getuid?.() === 0)(
  "Warden's state folder behind a folder it may not enter (as root every folder opens)",
  () => {
    it('is refused rather than left uncovered', async () => {
      const state = join(home, 'closed', 'state');
      await mkdir(state, { recursive: true });
      await chmod(join(home, 'closed'), 0o600);
      try {
        const r = await findProtectedTargets([{ path: home, access: 'write' }], [state]);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.error.message).toContain('cannot be looked at');
      } finally {
        await chmod(join(home, 'closed'), 0o700);
      }
    });
  },
);
