/**
 * The paths a git config names, read as git reads them: sections in any case, old and new
 * subsection forms, a key on its header's line, quotes, escapes and comments, includes followed
 * (relative to the including file, `~/` against the home), and nothing from what does not parse.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitConfigPaths } from './git-config-paths';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-git-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('gitConfigPaths', () => {
  it('finds hooksPath and include paths however they are written', async () => {
    await writeFile(
      join(dir, 'config'),
      [
        '# a comment',
        '[CORE]',
        '\tHooksPath = "hooks dir" # trailing',
        '[core] hookspath = second',
        '[core.sub]',
        '\thooksPath=third',
        '[includeIf "gitdir:~/work/"]',
        '\tpath = more.gitconfig',
        '[include]',
        '\tpath = ~/global.inc',
        '[remote "origin"]',
        '\tpath = not-an-include',
        '# a comment that ends in a backslash does not go on \\',
        '[core]',
        '\thooksPath = after-the-comment',
      ].join('\n'),
    );
    await writeFile(join(dir, 'more.gitconfig'), '[core]\n\thooksPath = "from \\"more\\""\n');
    const named = gitConfigPaths(join(dir, 'config'), '/home/ada');
    expect(named.hooks).toEqual([
      'hooks dir',
      'second',
      'third',
      'from "more"',
      'after-the-comment',
    ]);
    expect(named.includes).toEqual([join(dir, 'more.gitconfig'), '/home/ada/global.inc']);
  });

  it('names nothing in a file git would reject, and skips empty values', async () => {
    await writeFile(join(dir, 'broken'), '[core]\n\thooksPath = x\n[core\n');
    expect(gitConfigPaths(join(dir, 'broken'), undefined).hooks).toEqual([]);
    await writeFile(join(dir, 'empty'), '[core]\n\thooksPath =\n\thooksPath = ""\n');
    expect(gitConfigPaths(join(dir, 'empty'), undefined).hooks).toEqual([]);
  });

  it("expands ~user/ from the system's user list, and leaves an unknown user unexpanded", async () => {
    await writeFile(join(dir, 'u'), '[include]\n\tpath = ~root/x\n\tpath = ~no-such-user-w/y\n');
    expect(gitConfigPaths(join(dir, 'u'), '/home/ada').includes).toEqual(['/root/x']);
  });

  it("follows an include loop to git's depth, and reads nothing from a missing file", async () => {
    await writeFile(join(dir, 'a'), '[include]\n\tpath = b\n');
    await writeFile(join(dir, 'b'), '[include]\n\tpath = a\n[core]\n\thooksPath = h\n');
    // As git, to its depth limit (git then fails on the file).
    const loop = gitConfigPaths(join(dir, 'a'), undefined);
    expect(new Set(loop.hooks)).toEqual(new Set(['h']));
    expect(new Set(loop.includes)).toEqual(new Set([join(dir, 'b'), join(dir, 'a')]));
    expect(gitConfigPaths(join(dir, 'missing'), undefined)).toEqual({
      hooks: [],
      worktrees: [],
      includes: [],
    });
  });

  it('joins a line that ends in a backslash to the next, as git does', async () => {
    await writeFile(
      join(dir, 'c'),
      '[core]\n\thooksPath = /a/ho\\\noks\n\tworktree = "/w/k\\\n"\n[include] path = x\\\\\n',
    );
    const named = gitConfigPaths(join(dir, 'c'), undefined);
    expect(named.hooks).toEqual(['/a/hooks']);
    expect(named.worktrees).toEqual(['/w/k']);
    // An escaped backslash at the end is a backslash, not a continuation.
    expect(named.includes).toEqual([join(dir, 'x\\')]);
  });
});
