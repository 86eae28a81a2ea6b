/**
 * The guard layers as calls read them: the managed file read once before the first call, again
 * in the background after the refresh interval, and an unusable file an error (rules refuse).
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Guards } from '../../app/policy/guards';
import { callLayers } from './call-layers';

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-layers-'));
  file = join(dir, 'managed-policy.json');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const write = async (doc: unknown) => {
  await writeFile(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  await chmod(file, 0o644);
};

describe('call layers', () => {
  it('reads the managed file before the first call, then answers at once with the same object', async () => {
    await write({ network: { deny: ['evil.example'] } });
    const global: Guards = { hiddenPaths: ['~/.ssh'] };
    const now = callLayers(() => global, { env: { WARDEN_MANAGED_POLICY: file } });
    const first = now();
    expect(first).toBeInstanceOf(Promise);
    const layers = await first;
    expect(layers).toEqual({
      ok: true,
      value: { global, managed: { network: { deny: ['evil.example'] } } },
    });
    const again = now();
    if (again instanceof Promise) throw new Error('expected an answer at once');
    expect(again.ok && layers.ok && again.value === layers.value).toBe(true);
  });

  it('an unusable managed file is an error once it is read again', async () => {
    await write({ network: { deny: ['evil.example'] } });
    const now = callLayers(() => undefined, { env: { WARDEN_MANAGED_POLICY: file }, refreshMs: 0 });
    expect((await now()).ok).toBe(true);
    await write('{ not json');
    void now(); // starts the background read; this call still answers from the last good read
    await expect
      .poll(() => {
        const r = now();
        return r instanceof Promise ? true : r.ok;
      })
      .toBe(false);
  });
});
