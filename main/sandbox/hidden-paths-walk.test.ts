import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHiddenTargets } from './hidden-paths';

let root: string;
let outside: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'warden-hidden-walk-'));
  outside = await mkdtemp(join(tmpdir(), 'warden-hidden-outside-'));
  // A wide and deep tree, so that the walk reads many folders at once.
  for (let i = 0; i < 40; i++) {
    const dir = join(root, `pkg-${i}`, 'lib', 'deep');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.js'), '');
    if (i % 10 === 3) await writeFile(join(dir, '.env'), 'SECRET=1');
  }
  await mkdir(join(root, 'pkg-7', '.env.local'), { recursive: true });
  await writeFile(join(root, 'pkg-7', '.env.local', 'inside'), '');
  await writeFile(join(outside, '.env'), 'SECRET=2');
  await symlink(outside, join(root, 'pkg-1', 'link'));
}, 30_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('findHiddenTargets walk', () => {
  it('finds every matching name at any depth, and does not follow symlinks out of the root', async () => {
    const found = await findHiddenTargets([root], ['.env', '.env.*'], undefined);
    expect(found.ok).toBe(true);
    const paths = found.ok ? found.value.map((t) => t.path).sort() : [];
    expect(paths).toEqual(
      [
        ...[3, 13, 23, 33].map((i) => join(root, `pkg-${i}`, 'lib', 'deep', '.env')),
        join(root, 'pkg-7', '.env.local'),
      ].sort(),
    );
    expect(found.ok && found.value.find((t) => t.path.endsWith('.env.local'))?.directory).toBe(
      true,
    );
  });

  it('refuses a root with more entries than the budget (fail closed)', async () => {
    const found = await findHiddenTargets([root], ['.env'], undefined, 50);
    expect(found.ok).toBe(false);
    expect(!found.ok && found.error.message).toContain('more than 50 entries');
  });

  it('lets the event loop run while it walks a large tree (other sessions are not held up)', async () => {
    // The checkout's node_modules: tens of thousands of entries, far more than one slice reads.
    const big = join(process.cwd(), 'node_modules');
    let turns = 0;
    let walking = true;
    const tick = () => {
      if (!walking) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    const found = await findHiddenTargets([big], ['.env', '.env.*'], undefined);
    walking = false;
    expect(found.ok).toBe(true);
    expect(turns).toBeGreaterThan(1);
  });
});
