/**
 * The hidden-path search checked ahead by the shell front's `stat`: its output is read as Node
 * would `lstat` the same folders, confirms only records it shows unchanged, and is ignored unless
 * it is this process's, in a folder only this user may enter. Each refusal is checked against an
 * output that, if it were used, would leave a `.env` unmasked. The shell function itself runs here
 * too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readdirFailures } from '../../test/helpers/failing-readdir';
import { findHiddenTargets } from './hidden-paths';
import {
  AHEAD_VARIABLE,
  MAX_REREAD_FOLDERS,
  aheadDir,
  aheadListFile,
  parseAheadOutput,
  readAheadOutput,
} from './hidden-paths-ahead';
import { type HiddenPathsCache, hiddenPathsCache, hiddenPathsCacheDir } from './hidden-paths-cache';

// Inert until a test names a folder in `readdirFailures`.
vi.mock('node:fs', async (importOriginal) =>
  (await import('../../test/helpers/failing-readdir')).withFailingReaddir(await importOriginal()),
);

const HIDDEN = ['.env', '.env.*'];
const FORMAT = '%d %i %f %.9Z %n\\0';
const door = join(import.meta.dirname, '../../bin/warden-door.sh');
/** The clock of a search made well after every folder's ctime (records need a 2 s margin). */
const later = () => Date.now() + 10_000;
const token = String(process.pid);

let base: string;
let root: string;
let dir: string;

beforeEach(async () => {
  base = await fsp.mkdtemp(join(tmpdir(), 'warden-ahead-'));
  root = join(base, 'root');
  for (const f of ['a/deep/one', 'b/deep/two', 'c/three'])
    await fsp.mkdir(join(root, f), { recursive: true });
  await fsp.writeFile(join(root, 'b/deep/two/.env'), 'S=1');
  dir = hiddenPathsCacheDir(join(base, 'state'));
});
afterEach(async () => fsp.rm(base, { recursive: true, force: true }));

/** Runs coreutils' `stat` as bin/warden-door.sh does, over `folders`. */
function statAhead(folders: readonly string[]): string {
  const r = spawnSync('stat', ['--printf', FORMAT, ...folders], {
    encoding: 'utf8',
  });
  return r.stdout;
}

/** Writes `text` as this process's output. */
async function writeOutput(text: string): Promise<string> {
  await fsp.mkdir(aheadDir(dir), { recursive: true, mode: 0o700 });
  const file = join(aheadDir(dir), token);
  await fsp.writeFile(file, text);
  return file;
}

/**
 * A search by a new process; counts the folders the check ahead confirmed and the roots whose
 * records were read (none when a settled search was taken).
 */
async function search(aheadToken?: string, patterns = HIDDEN) {
  const cache = hiddenPathsCache({ dir, now: later, ...(aheadToken ? { aheadToken } : {}) });
  let confirmed = 0;
  let loaded = 0;
  const counting: HiddenPathsCache = {
    ...cache,
    confirmed: (folder, known) => {
      const yes = cache.confirmed(folder, known);
      if (yes) confirmed++;
      return yes;
    },
    load: (root, p) => {
      loaded++;
      return cache.load(root, p);
    },
  };
  const r = await findHiddenTargets([root], patterns, undefined, undefined, {
    cache: counting,
    server: 'probe',
  });
  await cache.write();
  if (!r.ok) throw new Error(r.error.message);
  return { found: r.value.map((t) => t.path).sort(), confirmed, loaded };
}

/** A search with the check ahead run first, as the shell front runs it. */
async function searchAhead(patterns = HIDDEN) {
  await writeOutput(statAhead(await listed()));
  return search(token, patterns);
}

const settledFile = () => join(aheadDir(dir), 'probe.settled');

/** The record files in the cache folder. */
const recordFiles = async () =>
  (await fsp.readdir(dir)).filter((n) => n.endsWith('.json')).map((n) => join(dir, n));

/** The folders the list for `probe` names. */
async function listed(): Promise<string[]> {
  const text = await fsp.readFile(aheadListFile(dir, 'probe')!, 'utf8');
  return text.split('\0').slice(0, -1);
}

describe('parseAheadOutput', () => {
  it('reads what stat prints as Node reads the same folders with lstat', () => {
    const folders = [root, join(root, 'a'), join(root, 'a/deep'), join(root, 'a/deep/one')];
    const seen = parseAheadOutput(statAhead(folders));
    expect([...seen.keys()]).toEqual(folders);
    for (const f of folders) {
      const info = lstatSync(f);
      expect(seen.get(f)).toEqual({ dev: info.dev, ino: info.ino, ctimeMs: info.ctimeMs });
    }
  });

  it('leaves out a record cut short, a malformed one and anything not a directory', async () => {
    const file = join(root, 'c/three/file');
    await fsp.writeFile(file, '');
    await fsp.symlink(join(root, 'a'), join(root, 'c/link'));
    const text = statAhead([join(root, 'a'), file, join(root, 'c/link'), join(root, 'c')]);
    const cut = `${text}${statAhead([join(root, 'b')]).slice(0, -1)}`;
    const seen = parseAheadOutput(`${cut.replace(/^/, 'x\0')}`);
    expect([...seen.keys()]).toEqual([join(root, 'a'), join(root, 'c')]);
    expect(parseAheadOutput('1 2 41ed 3.5 /a\0')).toEqual(new Map());
  });
});

describe('the digest of an output', () => {
  const record = (ino: number, path: string) => `2049 ${ino} 41ed 1700000000.000000000 ${path}\0`;
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  /** The digest of `text` written as this process's output, leaving out `except`. */
  async function digestOf(text: string, except: string[] = []) {
    await writeOutput(text);
    return readAheadOutput(dir, token)!.digest(new Set(except));
  }

  it('covers the records ended by their NUL, and leaves out exactly the folders named', async () => {
    const a = record(1, '/r/a');
    // A folder whose path ends as another's does, after a space: not that folder's record.
    const lookalike = record(2, '/r/x /r/a');
    const b = record(3, '/r/b');
    expect(await digestOf(a + lookalike + b + '2049 4 41')).toBe(sha256(a + lookalike + b));
    expect(await digestOf(a + lookalike + b, ['/r/a'])).toBe(sha256(lookalike + b));
    expect(await digestOf(a + lookalike + b + a, ['/r/a', '/r/b'])).toBe(sha256(lookalike));
    expect(await digestOf(a + b, ['/r'])).toBe(sha256(a + b));
  });
});

describe('the search with a check made ahead', () => {
  it('leaves a list of the recorded folders, and takes them unchanged from stat', async () => {
    const first = await search();
    expect(first.found).toEqual([join(root, 'b/deep/two/.env')]);
    const folders = await listed();
    expect(folders).toContain(join(root, 'a/deep/one'));
    await writeOutput(statAhead(folders));
    const next = await search(token);
    expect(next.found).toEqual(first.found);
    expect(next.confirmed).toBe(folders.length);
    // Read once and removed.
    await expect(fsp.stat(join(aheadDir(dir), token))).rejects.toThrow();
  });

  it('reads afresh a folder that stat shows changed, and finds the .env new in it', async () => {
    await search();
    await fsp.writeFile(join(root, 'a/deep/one/.env.local'), 'S=2');
    await writeOutput(statAhead(await listed()));
    const next = await search(token);
    expect(next.found).toContain(join(root, 'a/deep/one/.env.local'));
    expect(next.confirmed).toBe((await listed()).length - 1);
  });

  it('leaves the list as it is while stat shows every folder of it, and renews it for a new one', async () => {
    await search();
    const list = aheadListFile(dir, 'probe')!;
    const before = (await fsp.stat(list)).ino;
    await fsp.writeFile(join(root, 'c/three/file'), '');
    await searchAhead();
    expect((await fsp.stat(list)).ino).toBe(before);
    await fsp.mkdir(join(root, 'c/three/new'));
    await searchAhead();
    expect(await listed()).toContain(join(root, 'c/three/new'));
  });

  it('keeps a search it confirmed whole, and takes it while stat shows the same', async () => {
    const first = await search();
    const confirmedWhole = await searchAhead();
    expect(confirmedWhole.loaded).toBe(1);
    expect(confirmedWhole.confirmed).toBe((await listed()).length);
    // Aged as if no launch had used them for 40 days: a settled launch marks them used.
    const files = [settledFile(), aheadListFile(dir, 'probe')!, ...(await recordFiles())];
    expect(files).toHaveLength(3);
    const aged = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    for (const file of files) await fsp.utimes(file, aged, aged);
    const settled = await searchAhead();
    expect(settled).toEqual({ found: first.found, confirmed: 0, loaded: 0 });
    for (const file of files)
      expect((await fsp.stat(file)).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  });

  it('walks again once stat shows any folder changed, and finds the .env new in it', async () => {
    await search();
    await searchAhead();
    await fsp.writeFile(join(root, 'c/three/.env'), 'S=4');
    const next = await searchAhead();
    expect(next.loaded).toBe(1);
    expect(next.found).toContain(join(root, 'c/three/.env'));
  });

  it('walks again for other patterns, without the settled search', async () => {
    await search();
    await searchAhead();
    await fsp.writeFile(join(root, 'c/three/secret.key'), 'S=5');
    const other = await searchAhead([...HIDDEN, '*.key']);
    expect(other.loaded).toBe(1);
    expect(other.found).toContain(join(root, 'c/three/secret.key'));
  });

  describe('a folder changed at every launch (as npm changes its logs and cache index)', () => {
    const busy = () => join(root, 'c/three');
    let n = 0;
    /** A file that no pattern matches, new in the busy folder: its ctime moves, nothing else. */
    const churn = () => fsp.writeFile(join(busy(), `log-${n++}`), '');
    /** A search made once the busy folder changed again, and the settled file after it. */
    async function afterChurn() {
      await churn();
      const next = await searchAhead();
      return { ...next, kept: JSON.parse(await fsp.readFile(settledFile(), 'utf8')) as unknown };
    }
    const rereadOf = (kept: unknown) =>
      (kept as { roots: { reread: { folder: string }[] }[] }).roots.flatMap((r) =>
        r.reread.map((f) => f.folder),
      );

    it('is listed again alone while the rest stands as stat shows it, without the records', async () => {
      const first = await search();
      await searchAhead();
      const walked = await afterChurn();
      // Walked once more, and kept with that folder to list again.
      expect(walked.loaded).toBe(1);
      expect(rereadOf(walked.kept)).toEqual([busy()]);
      for (let i = 0; i < 3; i++) {
        const taken = await afterChurn();
        expect(taken).toMatchObject({ found: first.found, confirmed: 0, loaded: 0 });
      }
    });

    /** Writes a `.env` at `path`; the next search walks again and finds it. */
    async function findsNew(path: string) {
      await fsp.writeFile(path, 'S=9');
      const next = await searchAhead();
      expect(next.loaded).toBe(1);
      expect(next.found).toContain(path);
    }

    it('finds a .env new in it, a .env in a folder new in it, and one in any other folder', async () => {
      await search();
      await searchAhead();
      await afterChurn();
      await findsNew(join(busy(), '.env'));
      await afterChurn();
      await fsp.mkdir(join(busy(), 'sub'));
      await findsNew(join(busy(), 'sub/.env'));
      await afterChurn();
      await findsNew(join(root, 'a/deep/one/.env'));
    });

    it('finds what a symlink put in its place shows', async () => {
      await search();
      await searchAhead();
      await afterChurn();
      await fsp.rename(busy(), join(root, 'c/moved'));
      await fsp.symlink(join(root, 'b/deep/two'), busy());
      const swapped = await searchAhead();
      expect(swapped.loaded).toBe(1);
      // The link is not followed; the folder it names is searched where it is.
      expect(swapped.found).toEqual([join(root, 'b/deep/two/.env')]);
    });

    it('keeps no search with more such folders than it lists again', async () => {
      await search();
      await searchAhead();
      await afterChurn();
      const kept = await fsp.readFile(settledFile(), 'utf8');
      for (let i = 0; i <= MAX_REREAD_FOLDERS; i++) await fsp.mkdir(join(root, `a/new-${i}`));
      await searchAhead();
      expect(await fsp.readFile(settledFile(), 'utf8')).toBe(kept);
    });
  });

  // Root reads every folder, whatever its permissions: these run as any other user (CI runs
  // main/sandbox as one too).
  describe.skipIf(process.getuid?.() === 0)('a folder this user may not read (not as root)', () => {
    const locked = () => join(root, 'c/locked');
    beforeEach(async () => {
      await fsp.mkdir(locked());
      await fsp.writeFile(join(locked(), '.env'), 'S=6');
      await fsp.chmod(locked(), 0o000);
    });
    afterEach(async () => fsp.chmod(locked(), 0o755));

    it('is masked whole and recorded as such, so that the search still settles', async () => {
      const first = await search();
      // What lies in it cannot be searched: the server, as its owner, could open it up.
      expect(first.found).toEqual([join(root, 'b/deep/two/.env'), locked()].sort());
      expect(await listed()).toContain(locked());
      await searchAhead();
      const settled = await searchAhead();
      expect(settled).toEqual({ found: first.found, confirmed: 0, loaded: 0 });
    });

    it('is read once its permissions let this user in, and the .env in it is found', async () => {
      await search();
      await searchAhead();
      await fsp.chmod(locked(), 0o755);
      const next = await searchAhead();
      expect(next.loaded).toBe(1);
      expect(next.found).toContain(join(locked(), '.env'));
      expect(next.found).not.toContain(locked());
    });

    it('is masked from the records too, when the search walks again', async () => {
      await search();
      await searchAhead();
      await fsp.writeFile(join(root, 'a/deep/one/.env.local'), 'S=7');
      const next = await searchAhead();
      expect(next.loaded).toBe(1);
      expect(next.found).toEqual(
        [join(root, 'a/deep/one/.env.local'), join(root, 'b/deep/two/.env'), locked()].sort(),
      );
    });

    it('is masked whole when it may be entered but not listed: a name in it could be opened', async () => {
      await fsp.chmod(locked(), 0o100);
      expect((await search()).found).toContain(locked());
    });

    it('is searched afresh for other groups: neither the settled search nor the records hold', async () => {
      await search();
      await searchAhead();
      // As if this user had joined a group since: what it could not read may now be readable.
      const groups = vi.spyOn(process, 'getgroups').mockReturnValue([process.getgid!(), 4242]);
      try {
        const other = await searchAhead();
        expect(other).toMatchObject({ loaded: 1, confirmed: 0 });
      } finally {
        groups.mockRestore();
      }
    });
  });

  // macOS privacy controls and security modules refuse a listing with EPERM, and granting access
  // moves no ctime (injected into readdirSync here, so these run as root too).
  describe('a folder a security control refuses to list', () => {
    const guarded = () => join(root, 'c/guarded');
    beforeEach(async () => {
      await fsp.mkdir(guarded());
      await fsp.writeFile(join(guarded(), '.env'), 'S=8');
      readdirFailures.set(guarded(), 'EPERM');
    });
    afterEach(() => readdirFailures.clear());

    it('is masked whole and recorded as refused, so that the search still settles', async () => {
      const first = await search();
      expect(first.found).toEqual([join(root, 'b/deep/two/.env'), guarded()].sort());
      expect(await listed()).toContain(guarded());
      await searchAhead();
      const settled = await searchAhead();
      expect(settled).toEqual({ found: first.found, confirmed: 0, loaded: 0 });
    });

    it('is listed once access is granted, and the .env in it found, though the search had settled', async () => {
      await search();
      await searchAhead();
      expect(await searchAhead()).toMatchObject({ loaded: 0 });
      readdirFailures.clear();
      const next = await searchAhead();
      expect(next.loaded).toBe(1);
      expect(next.found).toContain(join(guarded(), '.env'));
      expect(next.found).not.toContain(guarded());
      // Recorded as listed now: the search settles again, and still finds it.
      await searchAhead();
      expect(await searchAhead()).toEqual({ found: next.found, confirmed: 0, loaded: 0 });
    });

    it('is listed once access is granted, from the records without a check ahead', async () => {
      await search();
      readdirFailures.clear();
      const next = await search();
      expect(next.found).toContain(join(guarded(), '.env'));
      expect(next.found).not.toContain(guarded());
    });

    it('is still masked whole from the records while refused', async () => {
      const first = await search();
      const again = await search();
      expect(again.found).toEqual(first.found);
      await searchAhead();
      const other = await searchAhead([...HIDDEN, '*.key']);
      expect(other.found).toContain(guarded());
    });
  });

  describe('a settled search that would hide the .env if it were used', () => {
    /** The settled search, its matches emptied, written with `mode`. */
    async function forgeSettled(mode: number) {
      await search();
      await searchAhead();
      const data = JSON.parse(await fsp.readFile(settledFile(), 'utf8')) as {
        roots: { matches: string[] }[];
      };
      for (const r of data.roots) r.matches = [];
      await fsp.rm(settledFile());
      await fsp.writeFile(settledFile(), JSON.stringify(data), { mode });
      await fsp.chmod(settledFile(), mode);
    }
    const env = () => join(root, 'b/deep/two/.env');

    it('is taken when private (the control)', async () => {
      await forgeSettled(0o600);
      expect((await searchAhead()).found).not.toContain(env());
    });

    it('is ignored when others may read or write it', async () => {
      await forgeSettled(0o644);
      expect((await searchAhead()).found).toContain(env());
    });

    it('is ignored without the check ahead', async () => {
      await forgeSettled(0o600);
      expect((await search()).found).toContain(env());
    });
  });

  it('serves the first search of a process only: a restart later checks every folder', async () => {
    await search();
    await searchAhead();
    await writeOutput(statAhead(await listed()));
    const cache = hiddenPathsCache({ dir, now: later, aheadToken: token });
    const again = () =>
      findHiddenTargets([root], HIDDEN, undefined, undefined, { cache, server: 'probe' });
    const first = await again();
    await fsp.writeFile(join(root, 'a/deep/one/.env'), 'S=6');
    const second = await again();
    expect(first.ok && first.value.map((t) => t.path)).not.toContain(join(root, 'a/deep/one/.env'));
    expect(second.ok && second.value.map((t) => t.path)).toContain(join(root, 'a/deep/one/.env'));
  });

  it('stops the job the shell left running, once the output is read', async () => {
    await search();
    await writeOutput(statAhead(await listed()));
    const job = spawn('sleep', ['30'], { stdio: 'ignore' });
    const ended = new Promise((resolve) => job.once('exit', (_code, signal) => resolve(signal)));
    await search(`${token}:${job.pid}`);
    expect(await ended).toBe('SIGTERM');
  });

  describe('an output that would hide a new .env if it were used', () => {
    /** Stat's view of the folders before a .env appears in one of them. */
    async function staleOutput() {
      await search();
      const stale = statAhead(await listed());
      await fsp.writeFile(join(root, 'a/deep/one/.env'), 'S=3');
      return writeOutput(stale);
    }
    const newEnv = () => join(root, 'a/deep/one/.env');

    it('is used when it is this process’s, in a private folder (the control)', async () => {
      await staleOutput();
      expect((await search(token)).found).not.toContain(newEnv());
    });

    it('is ignored when it is a symlink, even to a file of this user', async () => {
      const file = await staleOutput();
      await fsp.rename(file, join(base, 'elsewhere'));
      await fsp.symlink(join(base, 'elsewhere'), file);
      expect((await search(token)).found).toContain(newEnv());
    });

    it('is ignored when the variable names another process', async () => {
      await staleOutput();
      expect((await search(String(process.pid + 1))).found).toContain(newEnv());
      expect((await search()).found).toContain(newEnv());
    });

    it('is ignored in a folder others may enter', async () => {
      await staleOutput();
      await fsp.chmod(aheadDir(dir), 0o755);
      expect((await search(token)).found).toContain(newEnv());
    });
  });
});

describe('warden_ahead (bin/warden-door.sh)', () => {
  /** Runs `warden_ahead ARGS` in sh; prints the variable and, once stat is done, the output. */
  function runAhead(args: string[], before = '') {
    const script = [
      `. '${door}'`,
      before,
      `warden_ahead ${args.join(' ')}`,
      `echo "var=\${${AHEAD_VARIABLE}-} pid=$$"`,
      'wait',
      'sleep 0.3',
      `[ -n "\${${AHEAD_VARIABLE}-}" ] && cat "$WARDEN_HOME/cache/hidden-paths/ahead/$$" | tr "\\0" "\\n"`,
      'true',
    ].join('\n');
    const r = spawnSync('sh', ['-c', script], {
      env: { PATH: process.env.PATH, WARDEN_HOME: join(base, 'state') },
      encoding: 'utf8',
    });
    const [head = '', ...rest] = r.stdout.split('\n');
    const m = /^var=(\d*)(?::(\d+))? pid=(\d+)$/.exec(head);
    const [variable = '', job = '', pid = ''] = m?.slice(1) ?? [];
    return { variable, job, pid, lines: rest.filter(Boolean) };
  }

  it('checks the listed folders of a plain connect, into a file named by its PID', async () => {
    await search();
    const r = runAhead(['connect', 'probe']);
    expect(r.variable).toBe(r.pid);
    expect(Number(r.job)).toBeGreaterThan(0);
    expect(r.lines.length).toBe((await listed()).length);
    expect(r.lines.every((l) => / 4[0-9a-f]{3} \d+\.\d{9} \//.test(l))).toBe(true);
  });

  it('does nothing for another command, an unlisted server or an odd name', async () => {
    await search();
    for (const args of [
      ['servers', 'list'],
      ['connect', 'other'],
      ['connect', "'../probe'"],
    ]) {
      expect(runAhead(args).variable).toBe('');
    }
  });

  it('does not write over a file already there under its PID, and says nothing then', async () => {
    await search();
    const r = runAhead(
      ['connect', 'probe'],
      `printf stale > "$WARDEN_HOME/cache/hidden-paths/ahead/$$"`,
    );
    expect(r.variable).toBe('');
    expect(await fsp.readFile(join(aheadDir(dir), r.pid), 'utf8')).toBe('stale');
  });
});
