import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTime, runAuditCommand } from './audit-cli';
import { type AuditStore, openAuditStore } from './audit-store';
import { callEvent, netEvent, tamperWithRow } from './audit-test-events';
import { tempDirEach } from '../../test/helpers/temp-dir';

let home = '';
let out: string;
let err: string;
let writer: AuditStore | undefined;
const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (err += s) };
const run = (...args: string[]) => runAuditCommand(args, io, { wardenHome: home });

tempDirEach('warden-audit-cli-', (d) => (home = d));
beforeEach(() => {
  out = '';
  err = '';
});
afterEach(async () => {
  await writer?.close();
  writer = undefined;
});

/** A live writer (left open, as the core would be) with 30 events: odd github, even files. */
async function seed(): Promise<AuditStore> {
  const opened = openAuditStore({ path: join(home, 'audit.db') });
  if (!opened.ok) throw new Error(opened.error.message);
  writer = opened.value;
  for (let i = 1; i <= 30; i += 1) {
    const ts = new Date(Date.UTC(2026, 10, 1, 12, i)).toISOString();
    writer.append(i % 2 ? netEvent('github', i, ts) : callEvent('files', i, { p: i }, ts));
  }
  await writer.flush();
  return writer;
}

describe('warden audit list', () => {
  it('lists newest first with filters while the writer is still open', async () => {
    await seed();
    expect(
      await run('list', '--server', 'github', '--kind', 'network.decision', '--limit', '3'),
    ).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^29\t2026-11-01T12:29:00.000Z\tnetwork.decision .* github\/github#1: /,
    );
    expect(err).toBe('more: add --cursor 25 for the next page\n');
    out = '';
    expect(
      await run('list', '--server', 'github', '--limit', '3', '--cursor', '25', '--json'),
    ).toBe(0);
    const page = JSON.parse(out) as { rows: { id: number; hash: string }[]; nextCursor?: number };
    expect(page.rows.map((r) => r.id)).toEqual([23, 21, 19]);
    expect(page.nextCursor).toBe(19);
  });

  it('filters by time: ISO and durations ago', async () => {
    await seed();
    expect(await run('list', '--since', '2026-11-01T12:28:00Z')).toBe(0);
    expect(
      out
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['30', '29', '28']);
    out = '';
    expect(await run('list', '--since', '1d')).toBe(0);
    expect(out).toBe('');
    expect(parseTime('--since', '2h', Date.UTC(2026, 0, 1, 12))).toBe('2026-01-01T10:00:00.000Z');
  });

  it('says so when there is no log yet', async () => {
    expect(await run('list')).toBe(0);
    expect(err).toContain('No audit log at');
  });

  it.each([
    [['list', '--bogus'], /--bogus/],
    [['list', '--kind', 'nope'], /--kind: unknown kind 'nope'/],
    [['list', '--limit', '0'], /--limit: expected a whole number/],
    [['list', '--limit', '5000'], /--limit/],
    [['list', '--since', 'yesterday'], /--since: expected an ISO time/],
    [['list', '--outcome', 'maybe'], /--outcome/],
    [['list', '--server'], /--server/],
    [['verify', '--server', 'x'], /--server/],
    [['export'], /needs one FILE/],
    [['frobnicate'], /unknown audit command 'frobnicate'/],
  ])('refuses %j with one line naming the problem, exit 2', async (args, message) => {
    expect(await run(...args)).toBe(2);
    expect(err).toMatch(message);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
    expect(out).toBe('');
  });

  it('prints usage for --help', async () => {
    expect(await run('--help')).toBe(0);
    expect(out).toContain('warden audit list');
    out = '';
    expect(await run('list', '--help')).toBe(0);
    expect(out).toContain('--since TIME');
  });
});

describe('warden audit export', () => {
  it('writes JSON Lines of the matching rows, with hash fields', async () => {
    await seed();
    const file = join(home, 'files.jsonl');
    expect(await run('export', file, '--server', 'files')).toBe(0);
    expect(out).toBe(`exported 15 rows to ${file}\n`);
    // Tool arguments, as in the log itself: a new file is the user's alone, whatever the umask.
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const rows = (await readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; server: string; hash: string; prevHash: string });
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 15 }, (_, i) => 2 * (i + 1)));
    expect(
      rows.every((r) => r.server === 'files' && r.hash.length === 64 && r.prevHash.length === 64),
    ).toBe(true);
  });
});

describe('warden audit verify', () => {
  it('reports ok with the row count', async () => {
    await seed();
    expect(await run('verify')).toBe(0);
    expect(out).toMatch(/^ok: 30 rows verified \(head [0-9a-f]{64}\)\n$/);
  });

  it('exits 1 and names the first broken row and why', async () => {
    const s = await seed();
    await s.close();
    writer = undefined;
    tamperWithRow(join(home, 'audit.db'), 17);
    expect(await run('verify')).toBe(1);
    expect(out).toBe(
      'BROKEN at row 17: row 17 was changed after it was written (its contents do not match its hash)\n',
    );
  });

  it('says ok for an absent log', async () => {
    expect(await run('verify')).toBe(0);
    expect(out).toContain('ok: 0 rows verified');
  });
});
