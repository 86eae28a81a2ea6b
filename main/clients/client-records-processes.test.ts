/**
 * Two record stores of one Warden home stand for the app and the CLI importing from clients at
 * once: every import either makes is kept (the records are what disconnect restores from).
 */
import { expect, it } from 'vitest';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ClientRecords } from './client-records';

let home = '';
tempDirEach('warden-records-processes-', (d) => (home = d));

it('keeps the records of both processes', async () => {
  const app = new ClientRecords(home);
  const cli = new ClientRecords(home);
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? app : cli).update((r) => {
        r.imports.push({
          client: 'claude-desktop',
          file: '/c/claude.json',
          id: `["mcpServers","s${i}"]`,
          server: `s${i}`,
          at: new Date().toISOString(),
        });
      }),
    ),
  );
  const servers = (await new ClientRecords(home).read()).imports.map((r) => r.server).sort();
  expect(servers).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`).sort());
});
