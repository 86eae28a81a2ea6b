/** Reading only a regular file, never more than asked, without waiting on a FIFO. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile, readRegularFileSync, regularFileProblemText } from './regular-file';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'warden-regular-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const readers = [
  { name: 'readRegularFile', read: readRegularFile },
  {
    name: 'readRegularFileSync',
    read: (path: string, max: number) => readRegularFileSync(path, max),
  },
];

describe.each(readers)('$name', ({ read }) => {
  it('gives the bytes as they are, their text and the permission bits', async () => {
    const path = join(dir, 'f');
    const bytes = Buffer.from([0x7b, 0x7d, 0xff, 0x0a]);
    writeFileSync(path, bytes);
    chmodSync(path, 0o640);
    const r = await read(path, 4);
    expect(r.ok && r.value.bytes.equals(bytes)).toBe(true);
    expect(r.ok && r.value.text).toBe(bytes.toString('utf8'));
    expect(r.ok && r.value.mode).toBe(0o640);
  });

  it('reads exactly the limit, and refuses one byte more', async () => {
    const path = join(dir, 'f');
    writeFileSync(path, 'x'.repeat(100));
    expect((await read(path, 100)).ok).toBe(true);
    const over = await read(path, 99);
    expect(over.ok ? undefined : over.error).toEqual({ kind: 'too-large' });
    if (!over.ok) expect(regularFileProblemText(over.error, 99)).toBe('is larger than 99 bytes');
  });

  it('says a missing file is absent, and refuses a FIFO and a device without waiting', async () => {
    expect(await read(join(dir, 'none'), 10)).toEqual({ ok: false, error: { kind: 'absent' } });
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const path of [fifo, '/dev/zero', dir])
      expect(await read(path, 10)).toEqual({ ok: false, error: { kind: 'not-a-file' } });
  });
});

it('words each problem after the path', () => {
  const max = 8 * 1024 * 1024;
  expect(regularFileProblemText({ kind: 'too-large' }, max)).toBe('is larger than 8 MB');
  expect(regularFileProblemText({ kind: 'too-large' }, 256 * 1024)).toBe('is larger than 256 KB');
  expect(regularFileProblemText({ kind: 'not-a-file' }, max)).toBe('is not a regular file');
  expect(regularFileProblemText({ kind: 'unreadable', code: 'EACCES' }, max)).toBe(
    'cannot be read (EACCES)',
  );
});
