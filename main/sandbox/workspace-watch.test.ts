/**
 * The watch for new workspace files in writable folders: each way a name can appear (made, moved
 * in inside a folder, a bare repository's parts, a folder put where a watched one was) stops the
 * server; what the launch kept, masked folders, `node_modules` and the policy's exceptions do not;
 * whatever is new when the watch closes is moved aside, and only inside the writable folders.
 */
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WorkspaceWatchSpec, moveAside, workspaceStopText } from './workspace-aside';
import { findNewWorkspaceFiles, watchWorkspace } from './workspace-watch';

const NAMES = ['.git', '.vscode', '.claude', '.mcp.json', '.envrc'];

let root: string;
let spec: WorkspaceWatchSpec;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'warden-wswatch-'));
  await mkdir(join(root, 'src', 'deep'), { recursive: true });
  await mkdir(join(root, 'kept', '.git', 'hooks'), { recursive: true });
  await mkdir(join(root, 'masked'));
  await mkdir(join(root, 'node_modules', 'pkg'), { recursive: true });
  spec = {
    roots: [root],
    names: NAMES,
    kept: [join(root, 'kept', '.git')],
    masked: [join(root, 'masked')],
    dangling: [],
    absent: [],
  };
});
afterEach(async () => {
  await chmod(join(root, 'src'), 0o755).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

/** Starts a watch; `found` settles with the first reason given. */
async function started(s = spec, maxFolders?: number) {
  let resolve: (why: string) => void = () => undefined;
  const found = new Promise<string>((r) => (resolve = r));
  const watch = watchWorkspace(s, resolve, maxFolders);
  await watch.ready;
  return { watch, found };
}

const within = <T>(p: Promise<T>, ms = 3000) =>
  Promise.race([p, new Promise<'none'>((r) => setTimeout(() => r('none'), ms))]);

describe('watchWorkspace', () => {
  it('reports a workspace folder made at any depth, and moves it aside at close', async () => {
    const { watch, found } = await started();
    await mkdir(join(root, 'src', 'deep', '.git'));
    await writeFile(join(root, 'src', 'deep', '.git', 'config'), '[core]\n\tfsmonitor = x\n');
    expect(await within(found)).toMatch(/it created .*src\/deep\/\.git, a workspace file/);
    const moved = await watch.close();
    expect(moved).toHaveLength(1);
    expect(moved[0]!.path).toBe(join(root, 'src', 'deep', '.git'));
    expect(moved[0]!.movedTo).toMatch(/\/src\/deep\/\.git\.moved-by-warden-/);
    expect(await readdir(join(root, 'src', 'deep'))).toEqual([
      expect.stringMatching(/^\.git\.moved/),
    ]);
  });

  it('reports a folder moved in that holds one, and files made in a folder made after start', async () => {
    const { watch, found } = await started();
    const outside = await mkdtemp(join(tmpdir(), 'warden-wswatch-out-'));
    await mkdir(join(outside, 'pkg', '.claude'), { recursive: true });
    await rename(join(outside, 'pkg'), join(root, 'src', 'pkg'));
    expect(await within(found)).toMatch(/src\/pkg\/\.claude/);
    await watch.close();
    await rm(outside, { recursive: true });

    const second = await started();
    await mkdir(join(root, 'new', 'er'), { recursive: true });
    await new Promise((r) => setTimeout(r, 100));
    await writeFile(join(root, 'new', 'er', '.mcp.json'), '{}');
    expect(await within(second.found)).toMatch(/new\/er\/\.mcp\.json/);
    await second.watch.close();
  });

  it('reports a bare repository whatever order its parts come in', async () => {
    const { watch, found } = await started();
    const bare = join(root, 'src', 'x');
    await mkdir(join(bare, 'refs'), { recursive: true });
    // git follows a symlinked objects folder
    await mkdir(join(root, 'store'));
    await symlink(join(root, 'store'), join(bare, 'objects'));
    expect(await within(found, 300)).toBe('none');
    await writeFile(join(bare, 'HEAD'), 'ref: refs/heads/main\n');
    expect(await within(found)).toMatch(/src\/x\/HEAD/);
    const moved = await watch.close();
    expect(moved.map((m) => m.path)).toEqual([join(bare, 'HEAD')]);
    expect((await readdir(bare)).sort()).toEqual([
      expect.stringMatching(/^HEAD\.moved-by-warden-/),
      'objects',
      'refs',
    ]);
  });

  it('follows a folder put where a watched one was moved away', async () => {
    const { watch, found } = await started();
    await rename(join(root, 'src'), join(root, 'src-old'));
    await mkdir(join(root, 'src'));
    await new Promise((r) => setTimeout(r, 200));
    await mkdir(join(root, 'src', '.vscode'));
    expect(await within(found)).toMatch(/\/src\/\.vscode/);
    await watch.close();
  });

  it('leaves what the launch kept, masked folders, node_modules and exceptions alone', async () => {
    const { watch, found } = await started({ ...spec, names: NAMES.filter((n) => n !== '.envrc') });
    await writeFile(join(root, 'kept', '.git', 'hooks', 'pre-commit'), 'x');
    await mkdir(join(root, 'masked', '.git'));
    await mkdir(join(root, 'node_modules', 'pkg', '.git'));
    await writeFile(join(root, 'src', '.envrc'), 'x');
    await writeFile(join(root, 'src', 'plain.txt'), 'x');
    await mkdir(join(root, 'src', '.github'));
    expect(await within(found, 500)).toBe('none');
    expect(await watch.close()).toEqual([]);
  });

  it('leaves a dangling symlink the launch left until what it names appears', async () => {
    const link = join(root, 'src', '.vscode');
    await symlink(join(root, 'nowhere'), link);
    const { watch, found } = await started({ ...spec, dangling: [link] });
    expect(await within(found, 300)).toBe('none');
    await mkdir(join(root, 'nowhere'));
    expect(await within(found)).toMatch(/src\/\.vscode, a workspace file/);
    expect((await watch.close()).map((m) => m.path)).toEqual([link]);
  });

  it('reports a dangling symlink made after the launch', async () => {
    const { watch, found } = await started();
    await symlink(join(root, 'nowhere-else'), join(root, 'src', 'deep', '.claude'));
    expect(await within(found)).toMatch(/deep\/\.claude/);
    const moved = await watch.close();
    expect(moved.map((m) => m.path)).toEqual([join(root, 'src', 'deep', '.claude')]);
  });

  it("reports the user's global git config made where there was none", async () => {
    const config = join(root, 'home', '.config', 'git', 'config');
    await mkdir(join(root, 'home'));
    const { watch, found } = await started({ ...spec, absent: [config] });
    await mkdir(join(root, 'home', '.config', 'git'), { recursive: true });
    expect(await within(found, 300)).toBe('none');
    await writeFile(config, '[core]\n\tfsmonitor = x\n');
    expect(await within(found)).toMatch(/created .*\.config\/git\/config.*--unprotect \.git/);
    expect((await watch.close()).map((m) => m.path)).toEqual([config]);
  });

  it('stops the server when its folders are more than it may watch', async () => {
    const { watch, found } = await started(spec, 3);
    expect(await within(found)).toMatch(/could not watch more than 3 folders/);
    await watch.close();
  });

  it.skipIf(process.getuid?.() === 0)(
    'stops the server when a new folder cannot be watched',
    async () => {
      // (root reads any folder whatever its mode: nothing to refuse)
      const { watch, found } = await started();
      await mkdir(join(root, 'locked'), { mode: 0 });
      expect(await within(found)).toMatch(/could not watch .*locked/);
      await watch.close();
    },
  );

  it('stops the server at a new folder whose name is not valid UTF-8, not at such a file', async () => {
    const { watch, found } = await started();
    const odd = (rest: string) =>
      Buffer.concat([Buffer.from(`${root}/src/x-`), Buffer.from([0xff]), Buffer.from(rest)]);
    await writeFile(odd('.txt'), 'x');
    expect(await within(found, 300)).toBe('none');
    await mkdir(odd(''));
    await mkdir(Buffer.concat([odd(''), Buffer.from('/.git')]));
    expect(await within(found)).toMatch(
      /could not watch .*x-\uFFFD \(its name is not valid UTF-8\)/,
    );
    const moved = await watch.close();
    expect(moved).toHaveLength(1);
    expect(moved[0]!.path).toMatch(/x-\uFFFD$/);
    expect(moved[0]!.error).toMatch(/not valid UTF-8; Warden took all its permissions away/);
    expect((await stat(odd(''))).mode & 0o777).toBe(0);
    await chmod(odd(''), 0o755);
  });

  it.skipIf(process.getuid?.() === 0)(
    'opens up a folder left unlistable at the end, and moves aside what it holds',
    async () => {
      // (root lists any folder whatever its mode)
      const { watch, found } = await started();
      await mkdir(join(root, 'node_modules', 'g', '.git'), { recursive: true });
      await mkdir(join(root, 'src', 'd'));
      await rename(join(root, 'node_modules', 'g', '.git'), join(root, 'src', 'd', '.git'));
      await chmod(join(root, 'src', 'd'), 0o300);
      expect(await within(found)).toMatch(/src\/d/);
      const moved = await watch.close();
      expect(moved.map((m) => m.movedTo ?? m.error)).toEqual([
        expect.stringMatching(/src\/d\/\.git\.moved-by-warden-/),
      ]);
    },
  );

  it('reports a repository git would use that holds only HEAD and a commondir', async () => {
    const { watch, found } = await started();
    await mkdir(join(root, 'node_modules', 'c', 'objects'), { recursive: true });
    await mkdir(join(root, 'node_modules', 'c', 'refs'));
    await mkdir(join(root, 'src', 'w'));
    await writeFile(join(root, 'src', 'w', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(root, 'src', 'w', 'commondir'), '../../node_modules/c\n');
    expect(await within(found)).toMatch(/src\/w\/HEAD/);
    await watch.close();
  });

  it('reports a repository whose objects and refs are files git may search', async () => {
    const { watch, found } = await started();
    await mkdir(join(root, 'src', 'f'));
    for (const part of ['objects', 'refs']) {
      await writeFile(join(root, 'src', 'f', part), '', { mode: 0o755 });
    }
    await writeFile(join(root, 'src', 'f', 'HEAD'), 'ref: refs/heads/main\n');
    expect(await within(found)).toMatch(/src\/f\/HEAD/);
    await watch.close();
  });

  it('reports a new symlink into node_modules, which is not watched', async () => {
    const { watch, found } = await started();
    await symlink(join(root, 'node_modules', 'pkg'), join(root, 'src', 'lib'));
    expect(await within(found)).toMatch(/src\/lib, a symlink into node_modules/);
    await watch.close();
  });

  it('finds what a flood of events could have hidden, by the sweep it starts', async () => {
    const { watch, found } = await started();
    await mkdir(join(root, 'src', 'flood'));
    await Promise.all(
      Array.from({ length: 2500 }, (_, i) => writeFile(join(root, 'src', 'flood', `f${i}`), '')),
    );
    await mkdir(join(root, 'src', 'flood', '.git'));
    expect(await within(found, 10_000)).toMatch(/flood\/\.git/);
    await watch.close();
  });
});

describe('moveAside and findNewWorkspaceFiles', () => {
  it('does not follow a folder swapped for a symlink out of the writable folders', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'warden-wswatch-victim-'));
    await mkdir(join(outside, '.git'));
    await symlink(outside, join(root, 'src', 'link'));
    const moved = await moveAside(spec, [join(root, 'src', 'link', '.git')]);
    expect(moved[0]!.error).toMatch(/no longer a folder of this server's/);
    expect(await readdir(outside)).toEqual(['.git']);
    await rm(outside, { recursive: true });
  });

  it('reports one named in other letters, which a case-insensitive file system finds as such', async () => {
    for (const name of ['.GIT', '.Vscode', '.gıt', '.g\u200cit']) {
      const { watch, found } = await started();
      await mkdir(join(root, 'src', name));
      expect(await within(found)).toContain(`src/${name}, a workspace file`);
      expect((await watch.close()).map((m) => m.path)).toEqual([join(root, 'src', name)]);
    }
  });

  it('finds nothing in a folder as the launch left it', async () => {
    expect(await findNewWorkspaceFiles(spec)).toEqual({ found: [], unlistable: [] });
  });

  it('says what was stopped and where each file went', () => {
    const text = workspaceStopText({
      workspaceFiles: [
        { path: '/p/.git', movedTo: '/p/.git.moved-by-warden-1' },
        { path: '/p/.vscode', error: 'EPERM' },
      ],
    });
    expect(text).toMatch(/^stopped: it created \/p\/\.git, a workspace file/);
    expect(text).toMatch(/--unprotect \.git/);
    expect(text).toMatch(/moved aside to \/p\/\.git\.moved-by-warden-1/);
    expect(text).toMatch(/\/p\/\.vscode could not be moved aside \(EPERM\): remove it/);
    // The exception named is the workspace name the file is found as.
    for (const [path, name] of [
      ['/p/opencode.json', 'opencode.json'],
      ['/p/.Lefthook.YML', '.lefthook.yml'],
      ['/p/b/HEAD', '.git'],
      ['/h/.config/git/config', '.git'],
    ]) {
      const one = workspaceStopText({ workspaceFiles: [{ path: path!, movedTo: `${path}.x` }] });
      expect(one).toContain(`(--unprotect ${name})`);
    }
  });
});
