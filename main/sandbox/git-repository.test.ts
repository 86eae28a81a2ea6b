/**
 * What git would read that a launch keeps or refuses: a path missing inside a folder already kept
 * read-only is no refusal (husky's `.husky/_` before an install), a missing one elsewhere in a
 * writable folder is; a symlink that ends at a missing path there too; GIT_CONFIG_GLOBAL in place
 * of the usual global configs; more includes than Warden follows.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { findPolicyPaths } from './policy-paths';

let base: string;
let rw: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'warden-git-repo-')));
  rw = join(base, 'rw');
  await mkdir(join(rw, 'repo', '.git', 'hooks'), { recursive: true });
  await mkdir(join(base, 'home'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

async function search(env: Record<string, string> = { HOME: join(base, 'home') }) {
  const roots = [{ path: rw, access: 'write' as const }];
  const policy: Policy = { ...defaultPolicy(), filesystem: { roots } };
  return findPolicyPaths(roots, policy, { hostEnv: env });
}

const config = (text: string) => writeFile(join(rw, 'repo', '.git', 'config'), text);

describe('what git reads, kept or refused', () => {
  it('does not refuse a missing path inside a folder already kept read-only', async () => {
    await mkdir(join(rw, 'repo', '.husky'));
    await config('[core]\n\thooksPath = .husky/_\n[include]\n\tpath = config.local\n');
    const r = await search();
    expect(r.ok).toBe(true);
  });

  it('refuses a missing one elsewhere, and one a symlink ends at', async () => {
    await config('[include]\n\tpath = ../shared.cfg\n');
    const missing = await search();
    expect(!missing.ok && missing.error.message).toMatch(/repo\/shared\.cfg, which does not exist/);
    // A dotfiles layout: the link lies outside the writable folder, its end inside.
    await config('[core]\n');
    await writeFile(join(base, 'home', '.gitconfig'), '[include]\n\tpath = ~/.gitconfig.local\n');
    await symlink(join(rw, 'dotfiles', 'local'), join(base, 'home', '.gitconfig.local'));
    const linked = await search();
    expect(!linked.ok && linked.error.message).toMatch(/gitconfig\.local, which does not exist/);
  });

  it('reads GIT_CONFIG_GLOBAL in place of ~/.gitconfig', async () => {
    await mkdir(join(rw, 'dot'));
    await writeFile(join(rw, 'dot', 'config'), '[user]\n\tname = u\n');
    await writeFile(join(base, 'home', '.gitconfig'), '[include]\n\tpath = /nowhere/x\n');
    const r = await search({
      HOME: join(base, 'home'),
      GIT_CONFIG_GLOBAL: join(rw, 'dot', 'config'),
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.workspace.map((t) => t.path)).toContain(join(rw, 'dot', 'config'));
  });

  it('has the watch follow global configs missing in a writable folder, and dangling links', async () => {
    await symlink(join(rw, 'nowhere'), join(rw, '.envrc'));
    const r = await search({ HOME: rw });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.watch?.absent).toEqual([join(rw, '.gitconfig'), join(rw, '.config/git/config')]);
    expect(r.value.watch?.dangling).toEqual([join(rw, '.envrc')]);
    expect(r.value.watch?.kept).toContain(join(rw, 'repo', '.git'));
    const outside = await search();
    expect(outside.ok && outside.value.watch?.absent).toEqual([]);
  });

  it('refuses a config that includes more files than Warden follows', async () => {
    const lines = Array.from({ length: 250 }, (_, i) => `\tpath = inc${i}`);
    await config(`[include]\n${lines.join('\n')}\n`);
    for (let i = 0; i < 250; i++) await writeFile(join(rw, 'repo', '.git', `inc${i}`), '');
    const r = await search();
    expect(!r.ok && r.error.message).toMatch(/includes more git config files than Warden reads/);
  });
});
