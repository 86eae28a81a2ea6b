/**
 * The hidden-path search over very large roots: a tree of more than 200,000 entries (a developer's
 * home with its node_modules) is searched whole and every `.env` in it is found; a folder masked
 * whole is not read; past the ceiling the launch is refused with the remedy, never started with a
 * `.env` left unmasked.
 */
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHiddenTargets } from './hidden-paths';

// A memory file system makes the tree quick to build where the host has one.
const scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
let home: string;

/** `dirs` folders of `files` empty files each below `at`. */
function fill(at: string, dirs: number, files: number): void {
  for (let d = 0; d < dirs; d++) {
    const dir = join(at, `m${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < files; f++) closeSync(openSync(join(dir, `f${f}.js`), 'w'));
  }
}

beforeAll(async () => {
  home = await mkdtemp(join(scratch, 'warden-big-root-'));
  fill(join(home, 'project', 'node_modules'), 205, 1000);
  writeFileSync(join(home, 'project', '.env'), 'S=1');
  writeFileSync(join(home, 'project', 'node_modules', 'm150', '.env.local'), 'S=2');
  fill(join(home, '.cache'), 10, 100);
  writeFileSync(join(home, '.cache', 'm3', '.env'), 'S=3');
  fill(join(home, 'box', 'big'), 2, 1000);
  writeFileSync(join(home, 'box', 'big', 'm1', '.env'), 'S=4');
  fill(join(home, 'box', 'small'), 1, 20);
}, 120_000);
afterAll(async () => rm(home, { recursive: true, force: true }));

describe('hidden paths in a very large root', () => {
  it('searches a root of more than 200,000 entries whole and finds every .env', async () => {
    const r = await findHiddenTargets([home], ['.env', '.env.*'], home);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.map((t) => t.path).sort()).toEqual(
      [
        join(home, '.cache', 'm3', '.env'),
        join(home, 'box', 'big', 'm1', '.env'),
        join(home, 'project', '.env'),
        join(home, 'project', 'node_modules', 'm150', '.env.local'),
      ].sort(),
    );
  });

  it('does not read a folder masked whole, so it does not count', async () => {
    // Box holds 2,000 entries below big/ and 20 beside it.
    const box = [join(home, 'box')];
    expect((await findHiddenTargets(box, ['.env'], home, 100)).ok).toBe(false);
    const r = await findHiddenTargets(box, ['~/box/big', '.env'], home, 100);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toEqual([{ path: join(home, 'box', 'big'), directory: true, byPath: true }]);
  });

  it('past the ceiling refuses the launch and says what to do', async () => {
    const r = await findHiddenTargets([home], ['.env'], home, 50_000);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain('more than 50000 entries');
    expect(r.error.remedy).toContain('narrower folder');
    expect(r.error.remedy).toContain('un-hide .env');
  });
});
