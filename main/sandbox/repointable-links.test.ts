/**
 * A declared hidden path or Warden's state folder reached through a symlink in a folder the server
 * may write is refused: the server could re-point the symlink, and a later launch would hide what
 * it then points at while the real folder showed (or read a state folder the server made). The
 * same symlink in a read-only root, or above every root, is followed as before.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { findProtectedTargets } from './linux/filesystem-view';

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
