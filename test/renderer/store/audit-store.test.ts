/** The audit slice: live batches folded once per frame, filters applied to live rows, bounds. */
import { describe, expect, it } from 'vitest';
import { foldNewer, foldOlder } from '../../../renderer/src/store/audit/audit-buffer';
import { queryOf, rowMatches, textMatches } from '../../../renderer/src/store/audit/audit-filter';
import { ACTIVITY_RECENT } from '../../../renderer/src/store/activity/activity-fold';
import { auditSelectors } from '../../../renderer/src/store/audit/audit-selectors';
import { ACTIVITY_EVERY_MS } from '../../../renderer/src/store/activity/activity-slice';
import { AUDIT_PAGE } from '../../../renderer/src/store/audit/audit-slice';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { auditRow, fakeApi, manualClock, manualFrames } from './fake-api';

const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id);

describe('audit buffer', () => {
  it('puts a batch (oldest first) in front, newest first, dropping what is already loaded', () => {
    const rows = [auditRow(3), auditRow(2)];
    const out = foldNewer(rows, [auditRow(2), auditRow(3), auditRow(4), auditRow(5)], 10);
    expect(ids(out.rows)).toEqual([5, 4, 3, 2]);
    expect(out.added).toBe(2);
  });

  it('stays within its bound, dropping the oldest', () => {
    const rows = [auditRow(3), auditRow(2), auditRow(1)];
    const out = foldNewer(rows, [auditRow(4), auditRow(5)], 4);
    expect(ids(out.rows)).toEqual([5, 4, 3, 2]);
    expect(out.dropped).toBe(1);
    const flood = foldNewer(
      rows,
      [6, 7, 8, 9, 10, 11].map((i) => auditRow(i)),
      4,
    );
    expect(ids(flood.rows)).toEqual([11, 10, 9, 8]);
  });

  it('appends an older page behind, skipping overlap, up to the bound', () => {
    expect(
      ids(foldOlder([auditRow(5), auditRow(4)], [auditRow(4), auditRow(3), auditRow(2)], 3)),
    ).toEqual([5, 4, 3]);
  });
});

describe('audit filter', () => {
  it('reads text like the core full-text search: every word, whole words, `*` prefix', () => {
    const text = 'mcp.request info github/i-1: tools/call, tool search_issues, 10 bytes';
    expect(textMatches(text, 'search_issues')).toBe(true);
    expect(textMatches(text, 'SEARCH_ISSUES github')).toBe(true);
    expect(textMatches(text, 'search')).toBe(false);
    expect(textMatches(text, 'search*')).toBe(true);
    expect(textMatches(text, 'mcp.request')).toBe(true);
    expect(textMatches(text, 'tools/call missing')).toBe(false);
  });

  it('matches server, instance, kinds, outcome and the time range', () => {
    const row = auditRow(7, { server: 'fs' });
    expect(rowMatches(row, {})).toBe(true);
    expect(rowMatches(row, { server: 'fs', kinds: ['mcp.request'], outcome: 'info' })).toBe(true);
    expect(rowMatches(row, { server: 'github' })).toBe(false);
    expect(rowMatches(row, { instance: 'i-2' })).toBe(false);
    expect(rowMatches(row, { kinds: ['grant.decided'] })).toBe(false);
    expect(rowMatches(row, { since: '2026-01-01T00:00:08.000Z' })).toBe(false);
    expect(rowMatches(row, { until: '2026-01-01T00:00:07.000Z' })).toBe(true);
  });

  it('becomes the core query, one kind or several', () => {
    expect(queryOf({ kinds: ['mcp.request'], text: '  x ' }, 50)).toEqual({
      limit: 50,
      kind: 'mcp.request',
      text: 'x',
    });
    expect(queryOf({ kinds: ['mcp.request', 'mcp.response'] }, 10).kind).toEqual([
      'mcp.request',
      'mcp.response',
    ]);
  });
});

describe('audit slice', () => {
  it('folds every batch that arrived within a frame with one update', async () => {
    const frames = manualFrames();
    const store = createRootStore(fakeApi().api, { frame: frames.schedule });
    await store.getState().openAudit();
    let updates = 0;
    store.subscribe(() => updates++);
    for (let i = 1; i <= 50; i++) store.getState().auditBatch([auditRow(i)]);
    expect(updates).toBe(0);
    expect(frames.pending()).toBe(1);
    frames.runFrame();
    expect(updates).toBe(1);
    expect(auditSelectors.count(store.getState())).toBe(50);
    expect(store.getState().auditRows[0]?.id).toBe(50);
    expect(store.getState().auditHeadAdded).toBe(50);
  });

  it('keeps only live rows that pass the current filter', async () => {
    const frames = manualFrames();
    const store = createRootStore(fakeApi().api, { frame: frames.schedule });
    await store.getState().openAudit();
    await store.getState().setAuditFilter({ server: 'fs' });
    store
      .getState()
      .auditBatch([auditRow(1, { server: 'fs' }), auditRow(2), auditRow(3, { server: 'fs' })]);
    frames.runFrame();
    expect(ids(store.getState().auditRows)).toEqual([3, 1]);
  });

  it('keeps rows that arrived live while a filter was loading, in front of the page', async () => {
    let answer: (v: unknown) => void = () => undefined;
    const frames = manualFrames();
    const { api } = fakeApi({ 'audit.query': () => new Promise((r) => (answer = r)) });
    const store = createRootStore(api, { frame: frames.schedule });
    void store.getState().openAudit();
    const loading = store.getState().setAuditFilter({});
    store.getState().auditBatch([auditRow(11)]);
    frames.runFrame();
    answer({ rows: [auditRow(10), auditRow(9)], nextCursor: 9 });
    await loading;
    expect(ids(store.getState().auditRows)).toEqual([11, 10, 9]);
    expect(auditSelectors.hasMore(store.getState())).toBe(true);
  });

  it('exports every page of the filter, oldest first, as JSON Lines', async () => {
    const pages: Record<string, unknown> = {
      none: { rows: [auditRow(5), auditRow(4)], nextCursor: 4 },
      4: { rows: [auditRow(3)] },
    };
    const { api, calls } = fakeApi({
      'audit.query': (q) =>
        Promise.resolve(pages[String((q as { cursor?: number }).cursor ?? 'none')]),
    });
    const store = createRootStore(api);
    await store.getState().setAuditFilter({ server: 'github' });
    const { text, rows } = await store.getState().exportAudit();
    expect(rows).toBe(3);
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual([3, 4, 5]);
    expect(
      calls
        .filter((c) => c.op === 'audit.query')
        .every((c) => (c.input as { server?: string }).server === 'github'),
    ).toBe(true);
  });

  it('finds the response of a selected request among the loaded rows', async () => {
    const frames = manualFrames();
    const store = createRootStore(fakeApi().api, { frame: frames.schedule });
    await store.getState().openAudit();
    const response = auditRow(9, {
      kind: 'mcp.response',
      outcome: 'ok',
      event: {
        kind: 'mcp.response',
        ts: 't',
        server: 'github',
        instance: 'i-1',
        outcome: 'ok',
        requestId: 8,
        method: 'tools/call',
        durationMs: 3,
        sizeBytes: 1,
      },
    });
    store.getState().auditBatch([auditRow(8), response]);
    frames.runFrame();
    store.getState().selectAuditRow(8);
    expect(auditSelectors.selected(store.getState())?.id).toBe(8);
    expect(auditSelectors.pairOfSelected(store.getState())?.id).toBe(9);
  });

  it("finds the server's request a selected client answer answers, by instance and id", async () => {
    const frames = manualFrames();
    const store = createRootStore(fakeApi().api, { frame: frames.schedule });
    await store.getState().openAudit();
    const at = { ts: 't', server: 'github', instance: 'i-1', requestId: 4 };
    const asked = (id: number, instance: string) =>
      auditRow(id, {
        kind: 'mcp.server-request',
        outcome: 'info',
        instance,
        event: {
          ...at,
          instance,
          kind: 'mcp.server-request',
          outcome: 'info',
          method: 'sampling/createMessage',
          sizeBytes: 1,
        },
      });
    const answer = auditRow(12, {
      kind: 'mcp.client-answer',
      outcome: 'error',
      event: {
        ...at,
        kind: 'mcp.client-answer',
        outcome: 'error',
        method: 'sampling/createMessage',
        durationMs: 2,
        sizeBytes: 1,
      },
    });
    // Another instance's request with the same id is not the one answered.
    store.getState().auditBatch([asked(10, 'i-1'), asked(11, 'i-2'), answer]);
    frames.runFrame();
    store.getState().selectAuditRow(12);
    expect(auditSelectors.pairOfSelected(store.getState())?.id).toBe(10);
    store.getState().selectAuditRow(10);
    expect(auditSelectors.pairOfSelected(store.getState())?.id).toBe(12);
  });

  it("pairs no answer with a server's request Warden refused for reusing a waiting id", async () => {
    const frames = manualFrames();
    const store = createRootStore(fakeApi().api, { frame: frames.schedule });
    await store.getState().openAudit();
    const at = { ts: 't', server: 'github', instance: 'i-1', requestId: 4 };
    const asked = (id: number, outcome: 'info' | 'refused') =>
      auditRow(id, {
        kind: 'mcp.server-request',
        outcome,
        event: {
          ...at,
          kind: 'mcp.server-request',
          outcome,
          method: 'elicitation/create',
          sizeBytes: 1,
        },
      });
    const answer = auditRow(12, {
      kind: 'mcp.client-answer',
      outcome: 'info',
      event: {
        ...at,
        kind: 'mcp.client-answer',
        outcome: 'info',
        method: 'elicitation/create',
        durationMs: 2,
        sizeBytes: 1,
      },
    });
    // The second request under id 4 came while the first waited: refused, never passed on.
    store.getState().auditBatch([asked(10, 'info'), asked(11, 'refused'), answer]);
    frames.runFrame();
    store.getState().selectAuditRow(12);
    expect(auditSelectors.pairOfSelected(store.getState())?.id).toBe(10);
    store.getState().selectAuditRow(11);
    expect(auditSelectors.pairOfSelected(store.getState())).toBeUndefined();
  });

  it('keeps no rows while the audit screen is closed; the activity strips still fold them', () => {
    const frames = manualFrames();
    const time = manualClock();
    const store = createRootStore(fakeApi().api, { frame: frames.schedule, clock: time.clock });
    for (let start = 1; start <= 200_000; start += 1000) {
      const batch = Array.from({ length: 1000 }, (_, k) =>
        auditRow(start + k, { server: `s${(start + k) % 7}` }),
      );
      store.getState().auditBatch(batch);
      store.getState().activityBatch(batch);
      time.advance(ACTIVITY_EVERY_MS);
      frames.runFrame();
    }
    const s = store.getState();
    expect(s.auditRows).toHaveLength(0);
    expect(Object.keys(s.activity)).toHaveLength(7);
    expect(Object.values(s.activity).every((a) => a.recent.length <= ACTIVITY_RECENT)).toBe(true);
    expect(s.activity.s1?.calls).toBeGreaterThan(28_000);
  });

  it('loads the newest page by query when the screen opens, and lets it go when it closes', async () => {
    const frames = manualFrames();
    const { api, calls } = fakeApi({
      'audit.query': () => Promise.resolve({ rows: [auditRow(20), auditRow(19)], nextCursor: 19 }),
    });
    const store = createRootStore(api, { frame: frames.schedule });
    await store.getState().setAuditFilter({ server: 'github' });
    expect(calls.filter((c) => c.op === 'audit.query')).toHaveLength(0);
    await store.getState().openAudit();
    expect(calls.filter((c) => c.op === 'audit.query').map((c) => c.input)).toEqual([
      { limit: AUDIT_PAGE, server: 'github' },
    ]);
    store.getState().auditBatch([auditRow(21)]);
    frames.runFrame();
    expect(ids(store.getState().auditRows)).toEqual([21, 20, 19]);
    store.getState().closeAudit();
    store.getState().auditBatch([auditRow(22)]);
    frames.runFrame();
    expect(store.getState().auditRows).toHaveLength(0);
    expect(auditSelectors.hasMore(store.getState())).toBe(false);
    expect(store.getState().auditFilter).toEqual({ server: 'github' });
  });
});
