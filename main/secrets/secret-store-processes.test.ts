/**
 * Several Warden processes changing the one secrets file at once (the app, `warden serve`, each
 * standalone `warden connect`, the CLI): every change is kept, a removed secret stays removed, and
 * a change waits for the process holding the file's lock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleForNode } from '../../test/helpers/bundle';
import { processStart, pidNamespace } from '../core/core-lock';
import { headlessSecretStore } from './headless-secret-store';

let writer: string;
beforeAll(async () => {
  writer = await bundleForNode(join(import.meta.dirname, '../../test/fixtures/secret-writer.ts'));
});

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-secrets-processes-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [writer, home, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

const stored = async (): Promise<Record<string, string>> =>
  JSON.parse(await readFile(join(home, 'secrets.json'), 'utf8')) as Record<string, string>;

describe('the secrets file changed by several processes at once', () => {
  it('keeps every change of every process', async () => {
    const runs = await Promise.all(['a', 'b', 'c'].map((p) => run([p, '25'])));
    for (const r of runs) expect(r).toEqual({ code: 0, stderr: '' });
    const refs = Object.keys(await stored());
    expect(refs).toHaveLength(75);
    for (const p of ['a', 'b', 'c'])
      for (let i = 0; i < 25; i++) expect(refs).toContain(`${p}.${i}`);
  });

  it('keeps a removed secret removed while other processes change other entries', async () => {
    const store = headlessSecretStore(home);
    for (let i = 0; i < 10; i++) expect((await store.set(`old.${i}`, 'token')).ok).toBe(true);
    const removes = Array.from({ length: 10 }, (_, i) => `old.${i}`);
    const runs = await Promise.all([
      run(['x', '0', ...removes]),
      run(['y', '30']),
      run(['z', '30']),
    ]);
    for (const r of runs) expect(r).toEqual({ code: 0, stderr: '' });
    const refs = Object.keys(await stored());
    expect(refs.filter((r) => r.startsWith('old.'))).toEqual([]);
    expect(refs).toHaveLength(60);
  });
});

describe('the lock of the secrets file', () => {
  let holder: ChildProcess | undefined;
  afterEach(() => {
    holder?.kill('SIGKILL');
    holder = undefined;
  });

  /** Writes the lock file as a live process (a `sleep`) would hold it. */
  async function holdLock(): Promise<string> {
    holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => holder!.once('spawn', resolve));
    const pid = holder.pid!;
    const owner = { pid, what: 'a test', since: new Date().toISOString(), ...processStart(pid) };
    const pidns = pidNamespace();
    const lock = join(home, 'secrets.json.lock');
    await writeFile(lock, `${JSON.stringify({ ...owner, ...(pidns ? { pidns } : {}) })}\n`);
    return lock;
  }

  it.runIf(process.platform === 'linux')(
    'makes a change wait for the process that holds it, then go on once it is freed',
    async () => {
      const lock = await holdLock();
      const store = headlessSecretStore(home);
      let done = false;
      const set = store.set('token', 'v').then((r) => ((done = true), r));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBe(false);
      await rm(lock);
      expect(await set).toEqual({ ok: true, value: undefined });
      expect(await stored()).toEqual({ token: 'v' });
    },
  );

  it.runIf(process.platform === 'linux')('takes over a lock whose holder is gone', async () => {
    await holdLock();
    const gone = new Promise((resolve) => holder!.once('exit', resolve));
    holder!.kill('SIGKILL');
    await gone;
    const store = headlessSecretStore(home);
    expect(await store.set('token', 'v')).toEqual({ ok: true, value: undefined });
  });
});
