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
});
