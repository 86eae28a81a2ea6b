/**
 * A server that may write a root can try to undo, between two launches, what hides a path from
 * it: make the folder around a `.env` one this user may list but not enter, bury it under a path
 * longer than the system resolves, or move it while another launch searches. Each of these leaves
 * the search unable to resolve what it found; the launch is refused rather than started with the
 * path unmasked. A dangling symlink or a declared path that does not exist hides nothing.
 */
import { execFileSync } from 'node:child_process';
import type * as fs from 'node:fs';
import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { hiddenPathsCache } from './hidden-paths-cache';

/** Folder → what to do right after the search lists it (a rename, as another process would). */
const afterListing = new Map<string, () => void>();

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const readdirSync = ((path: fs.PathLike, options?: unknown) => {
    const listed = real.readdirSync(path, options as fs.ObjectEncodingOptions);
    afterListing.get(String(path))?.();
    return listed;
  }) as typeof real.readdirSync;
  return { ...real, readdirSync, default: { ...real, readdirSync } };
});

const isRoot = process.getuid?.() === 0;
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'warden-hidden-undone-'));
});
afterEach(() => {
  afterListing.clear();
  // `rm -rf` walks a tree deeper than PATH_MAX, which fs.rm cannot.
  execFileSync('chmod', ['-R', 'u+rwx', root]);
  execFileSync('rm', ['-rf', root]);
});

const search = (hidden = ['.env']) => findHiddenTargets([root], hidden, root);

describe('what a server could undo between launches', () => {
  it('masks whole a folder of this user that it may list but not enter (mode 0600)', async () => {
    await mkdir(join(root, 'locked', 'proj'), { recursive: true });
    await writeFile(join(root, 'locked', 'proj', '.env'), 'SECRET=1');
    await chmod(join(root, 'locked'), 0o600);
    const r = await search();
    if (!r.ok) throw new Error(r.error.message);
    // Pinned (what holds it is not moved): moved away, the mask would go with it.
    expect(r.value).toEqual([{ path: join(root, 'locked'), directory: true, byPath: true }]);
  });

  it('refuses a launch whose .env lies below a path longer than the system resolves', async () => {
    // Built with relative steps (a shell's `cd` keeps the whole path), as a server could.
    const name = 'd'.repeat(250);
    const script =
      'chdir $ARGV[0] or die; for (1 .. 18) { mkdir $ARGV[1] or die; chdir $ARGV[1] or die } ' +
      'mkdir "proj" or die; open my $f, ">", "proj/.env" or die; print $f "SECRET=2"';
    execFileSync('perl', ['-e', script, root, name]);
    const r = await search();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('root-invalid');
    expect(r.error.message).toContain('ENAMETOOLONG');
    expect(r.error.remedy).toContain('length limit');
  });

  it('refuses a launch when what it found is moved away while it searches', async () => {
    await mkdir(join(root, 'p0'));
    await writeFile(join(root, 'p0', '.env'), 'SECRET=3');
    afterListing.set(join(root, 'p0'), () =>
      execFileSync('mv', [join(root, 'p0'), join(root, 'p1')]),
    );
    const r = await search();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain(`${join(root, 'p0', '.env')} was moved or removed`);
    expect(r.error.remedy).toContain('start the server again');
  });

  it.skipIf(isRoot)(
    'refuses a declared path behind a folder it may not enter (as root every folder opens)',
    async () => {
      await mkdir(join(root, '.config', 'gh'), { recursive: true });
      await writeFile(join(root, '.config', 'gh', 'hosts.yml'), 'token: SECRET=4');
      await chmod(join(root, '.config'), 0o600);
      const r = await search(['~/.config/gh']);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.message).toContain('EACCES');
    },
  );
});

describe.skipIf(isRoot)(
  'a folder closed while the search walks it (as root every folder opens)',
  () => {
    it('refuses the launch rather than passing over what lies below it', async () => {
      // Another instance flips its own folder's mode as this launch's search walks it.
      await mkdir(join(root, 'flip', 'sub'), { recursive: true });
      await writeFile(join(root, 'flip', 'sub', '.env'), 'SECRET=6');
      afterListing.set(join(root, 'flip'), () =>
        execFileSync('chmod', ['600', join(root, 'flip')]),
      );
      // With records, as a core searches: the folder's own lstat came before it was listed.
      const cache = hiddenPathsCache({ now: () => Date.now() + 10_000 });
      const r = await findHiddenTargets([root], ['.env'], root, undefined, { cache });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.message).toContain('EACCES');
    });
  },
);

describe('what hides nothing', () => {
  it('passes over a dangling .env symlink and a declared path that does not exist', async () => {
    await symlink(join(root, 'missing'), join(root, '.env'));
    await mkdir(join(root, 'open'));
    await writeFile(join(root, 'open', '.env'), 'SECRET=5');
    const r = await search(['.env', '~/.config/gh']);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toEqual([{ path: join(root, 'open', '.env'), directory: false }]);
  });
});
