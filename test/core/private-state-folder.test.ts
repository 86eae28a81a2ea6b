/**
 * The core on a state folder made 0755 (by hand, or by mkdir under umask 022), as on a host whose
 * home folders are 0755: it narrows the folder to 0700, saying so, and the audit log, its -wal and
 * its -shm are 0600, as are the other files it keeps there with the user's data.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

let root = '';
tempDirEach('warden-private-home-', (d) => (root = d));

it('makes a 0755 state folder 0700 and keeps the audit log and the other files 0600', async () => {
  const wardenHome = join(root, 'warden');
  await mkdir(wardenHome, { mode: 0o755 });
  const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const core = await createCore({ wardenHome });
  try {
    await core.config.flush();
    expect((await stat(wardenHome)).mode & 0o777).toBe(0o700);
    expect(said.mock.calls.map((c) => String(c[0]))).toContain(
      `warden: note: the state folder ${wardenHome} was mode 0755, open to other users; it is 0700 now: what it holds (the audit log among it) is yours alone`,
    );
    const files = (await readdir(wardenHome, { withFileTypes: true })).filter((f) => f.isFile());
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining(['audit.db', 'audit.db-wal', 'audit.db-shm']),
    );
    for (const f of files)
      expect([f.name, (await stat(join(wardenHome, f.name))).mode & 0o077]).toEqual([f.name, 0]);
  } finally {
    said.mockRestore();
    await core.close();
  }
});
