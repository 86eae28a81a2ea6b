/** bindCore: every core event lands in its slice, and every list is fetched again on (re)connect. */
import { describe, expect, it } from 'vitest';
import type { ConnectionStatus } from '../../../renderer/src/contract-client/ws-transport';
import { bindCore } from '../../../renderer/src/store/bind-core';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { auditRow, fakeApi, manualFrames } from './fake-api';

describe('bindCore events', () => {
  it('folds instances, grants, approvals, drift, config problems and audit batches', async () => {
    const { api, listeners } = fakeApi();
    const frames = manualFrames();
    const store = createRootStore(api, { frame: frames.schedule });
    await store.getState().openAudit();
    bindCore(store, {
      api,
      status: { kind: 'connecting', attempt: 0 },
      onStatus: () => () => undefined,
    });
    const emit = (event: string, payload: unknown) => listeners.get(event)?.(payload);
    emit('instances.changed', [
      {
        id: 'i',
        server: 's',
        client: 'c',
        revision: 1,
        state: { kind: 'running', since: 't' },
        restarts: 0,
        stderrTail: [],
      },
    ]);
    emit('grants.changed', [
      {
        id: 'g',
        server: 's',
        instance: 'i',
        host: 'h',
        port: 1,
        waiting: 1,
        createdAt: 't',
        expiresAt: 't',
      },
    ]);
    emit('approvals.changed', [
      { id: 'a', server: 's', instance: 'i', tool: 't', args: {}, createdAt: 't', expiresAt: 't' },
    ]);
    emit('drift.changed', [
      {
        server: 's',
        tool: 't',
        pinned: { name: 't' },
        current: { name: 't' },
        fields: ['description'],
        seenAt: 't',
      },
    ]);
    emit('tools.listingsChanged', [{ server: 's', unlisted: [{ name: 'gone', since: 't' }] }]);
    emit('config.problem', { kind: 'corrupt', message: 'bad json', at: 't' });
    emit('audit.batch', [auditRow(1), auditRow(2)]);
    frames.runFrame();
    const s = store.getState();
    expect([s.instances.length, s.grants.length, s.approvals.length, s.drift.length]).toEqual([
      1, 1, 1, 1,
    ]);
    expect(s.listings).toEqual([{ server: 's', unlisted: [{ name: 'gone', since: 't' }] }]);
    expect(s.configProblems).toHaveLength(1);
    expect(s.auditRows.map((r) => r.id)).toEqual([2, 1]);
  });

  it('fetches every list again after each (re)connection, keeping the audit filter', async () => {
    const { api, calls } = fakeApi();
    const store = createRootStore(api);
    let status: (s: ConnectionStatus) => void = () => undefined;
    bindCore(store, {
      api,
      status: { kind: 'connecting', attempt: 0 },
      onStatus: (l) => ((status = l), () => undefined),
    });
    await store.getState().openAudit();
    await store.getState().setAuditFilter({ server: 'fs' });
    calls.length = 0;
    status({ kind: 'open' });
    await Promise.resolve();
    const ops = calls.map((c) => c.op).sort();
    expect(ops).toEqual(
      [
        'approvals.list',
        'audit.query',
        // The servers list's activity strips, seeded from the newest calls and decisions.
        'audit.query',
        'config.problems',
        'drift.list',
        'folders.list',
        'gateway.status',
        'grants.list',
        'host.doctor',
        'instances.list',
        // The parent policy and the managed layer, for the Policy screen and locked controls.
        'policy.get',
        'servers.list',
        // Which pinned tools each server's whole listings leave out, for the Tools tab.
        'tools.listings',
      ].sort(),
    );
    expect(calls.find((c) => c.op === 'audit.query')?.input).toMatchObject({ server: 'fs' });
    expect(calls.filter((c) => c.op === 'audit.query')[1]?.input).toMatchObject({
      kind: ['mcp.request', 'mcp.response', 'network.decision'],
    });
  });
});
