/** The renderer store: folding core events, commands as Result values, binding to the core once. */
import { describe, expect, it } from 'vitest';
import { ContractCallError } from '../../../app/contract/contract-error';
import type { ServerView } from '../../../app/contract/servers';
import { defaultPolicy } from '../../../app/policy/defaults';
import type { ConnectionStatus } from '../../../renderer/src/contract-client/ws-transport';
import { bindCore } from '../../../renderer/src/store/bind-core';
import { connectionSelectors } from '../../../renderer/src/store/connection/connection-selectors';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { serversSelectors } from '../../../renderer/src/store/servers/servers-selectors';
import { fakeApi, refusing } from './fake-api';

function view(name: string, acknowledged = false): ServerView {
  return {
    server: {
      name,
      launch: { command: 'node', args: [] },
      policy: defaultPolicy(),
      revision: 1,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      acknowledged,
    },
    commandLine: 'node',
    isolation: { kind: 'off' },
  };
}

describe('servers slice', () => {
  it('adds through the core and upserts the returned view', async () => {
    const { api } = fakeApi({ 'servers.add': () => Promise.resolve(view('b')) });
    const store = createRootStore(api);
    store.getState().serversChanged([view('c'), view('a')]);
    const result = await store.getState().addServer({
      name: 'b',
      launch: { command: 'node', args: [] },
      policy: defaultPolicy(),
    });
    expect(result.ok).toBe(true);
    expect(serversSelectors.names(store.getState())).toEqual(['a', 'b', 'c']);
  });

  it('returns the core refusal as a value and leaves the list alone', async () => {
    const refusal = { kind: 'conflict' as const, message: 'a server named "a" exists' };
    const { api } = fakeApi({ 'servers.add': refusing(refusal) });
    const store = createRootStore(api);
    store.getState().serversChanged([view('a')]);
    const result = await store.getState().addServer({
      name: 'a',
      launch: { command: 'x', args: [] },
      policy: defaultPolicy(),
    });
    expect(result).toEqual({ ok: false, error: refusal });
    expect(store.getState().servers).toHaveLength(1);
  });

  it('replaces the list on servers.changed in one update', () => {
    const store = createRootStore(fakeApi().api);
    let updates = 0;
    store.subscribe(() => updates++);
    store.getState().serversChanged([view('x'), view('y')]);
    expect(updates).toBe(1);
    expect(serversSelectors.loaded(store.getState())).toBe(true);
    expect(serversSelectors.byName('y')(store.getState())?.server.name).toBe('y');
  });
});

describe('bindCore', () => {
  it('folds core events and reloads the list after each (re)connection', async () => {
    const { api, listeners, calls } = fakeApi({
      'servers.list': () => Promise.resolve([view('a')]),
    });
    const store = createRootStore(api);
    let statusListener: ((s: ConnectionStatus) => void) | undefined;
    bindCore(store, {
      api,
      status: { kind: 'connecting', attempt: 0 },
      onStatus: (l) => ((statusListener = l), () => undefined),
    });
    expect(calls.map((c) => c.op)).toEqual([]);
    statusListener?.({ kind: 'open' });
    await expect.poll(() => store.getState().servers.length).toBe(1);
    listeners.get('servers.changed')?.([view('a'), view('b')]);
    expect(serversSelectors.names(store.getState())).toEqual(['a', 'b']);
    statusListener?.({ kind: 'waiting', attempt: 1, retryInMs: 250 });
    expect(connectionSelectors.problem(store.getState())?.text).toContain('Lost the connection');
    statusListener?.({ kind: 'open' });
    expect(calls.filter((c) => c.op === 'servers.list')).toHaveLength(2);
    expect(connectionSelectors.problem(store.getState())).toBeUndefined();
  });

  it('explains a page opened without its token', () => {
    const store = createRootStore(fakeApi().api);
    store.getState().setConnection({ kind: 'stopped', reason: 'no-token' });
    expect(connectionSelectors.problem(store.getState())?.text).toContain('warden serve');
  });

  it('says a page whose session ended is signed out, not that it is retrying', () => {
    const store = createRootStore(fakeApi().api);
    const says = (why: 'signed-out' | 'expired') => {
      store.getState().setConnection({ kind: 'signed-out', why });
      return connectionSelectors.problem(store.getState());
    };
    expect(says('signed-out')).toEqual({
      text: 'Signed out of Warden.',
      hint: 'Going to the sign-in page…',
    });
    expect(says('expired')?.text).toBe('Your session with Warden ended.');
  });
});

describe('host slice: folder checks', () => {
  it('keeps the latest check of each folder, and an unreachable core changes nothing', async () => {
    let fail = false;
    const { api } = fakeApi({
      'host.checkRoots': (input) => {
        if (fail)
          return Promise.reject(new ContractCallError({ kind: 'internal', message: 'gone' }));
        const { paths } = input as { paths: string[] };
        return Promise.resolve(
          paths.map((path) =>
            path === '/missing'
              ? { path, ok: false, message: `root "${path}" does not exist`, remedy: 'create it' }
              : { path, ok: true, resolved: path },
          ),
        );
      },
    });
    const store = createRootStore(api);
    await store.getState().checkRoots(['/missing', '/home/me/p']);
    expect(store.getState().rootChecks['/missing']).toMatchObject({ ok: false });
    expect(store.getState().rootChecks['/home/me/p']).toMatchObject({ ok: true });
    fail = true;
    await store.getState().checkRoots(['/missing']);
    expect(Object.keys(store.getState().rootChecks)).toEqual(['/missing', '/home/me/p']);
  });
});
