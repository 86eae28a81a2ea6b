/** Strings of the live lists: formatted once per row, the same as the locale's own formatting. */
import { describe, expect, it } from 'vitest';
import * as format from '../../../renderer/src/components/display-format';
import { auditRow } from '../store/fake-api';

describe('display formats', () => {
  it('formats times and counts as the locale does, and keeps text that is not a time', () => {
    const ts = '2026-12-01T14:06:40.374Z';
    expect(format.clockTime(ts)).toBe(
      new Date(ts).toLocaleTimeString(undefined, { hour12: false }),
    );
    expect(format.clockTime('not a time')).toBe('not a time');
    expect(format.countText(100_000)).toBe((100_000).toLocaleString());
    expect(format.auditTime('x')).toBe('x');
    expect(format.auditTime(ts)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.374$/);
  });

  it("computes an audit row's strings once and keeps them with the row", () => {
    const row = auditRow(7);
    const text = format.auditRowText(row);
    expect(text.detail).toBe('tools/call, tool search_issues, 10 bytes');
    expect(format.auditRowText(row)).toBe(text);
    expect(format.auditRowText({ ...row })).not.toBe(text);
  });

  it("shows a server's bidi override or escape in a row's detail as an escape, not obeyed", () => {
    const row = auditRow(8);
    const event = { ...row.event, tool: 'read\u202etxt.exe\x1b[2J' } as typeof row.event;
    expect(format.auditRowText({ ...row, event }).detail).toBe(
      'tools/call, tool read\\u202etxt.exe\\x1b[2J, 10 bytes',
    );
  });

  it('cuts a long path in the middle, keeping its start and its informative end', () => {
    expect(format.middlePath('/home/alex/notes', 34)).toBe('/home/alex/notes');
    expect(format.middlePath('/home/alex/projects/acme/services/notes-server/data', 34)).toBe(
      '/home/…/services/notes-server/data',
    );
    const long = '/srv/a-very-long-folder-name-that-fills-the-whole-chip-by-itself';
    const cut = format.middlePath(long, 34);
    expect(cut).toHaveLength(34);
    expect(cut.startsWith('…')).toBe(true);
    expect(long.endsWith(cut.slice(1))).toBe(true);
    for (const p of ['/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t', 'C:\\Users\\alex\\x'.repeat(3)])
      for (const max of [12, 19, 20, 30]) {
        expect(format.middlePath(p, max).length).toBeLessThanOrEqual(max);
      }
    expect(format.middlePath('/home/alex/a-long-folder/and/its-end', 30)).toBe(
      '/home/…/and/its-end',
    );
  });
});
