/** Inbox decisions, server run state from instances, and the desktop notifications and badge. */
import { describe, expect, it } from 'vitest';
import type { InstanceView } from '../../../app/contract/instances';
import type { PendingGrant } from '../../../app/contract/grants';
import { newNotices } from '../../../app/contract/inbox-notices';
import { bindDesktop } from '../../../renderer/src/store/bind-desktop';
import { inboxSelectors } from '../../../renderer/src/store/inbox/inbox-slice';
import {
  rootProblems,
  runStateLabel,
  serverRunState,
} from '../../../renderer/src/store/instances/instances-selectors';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { fakeApi, refusing } from './fake-api';

const grant = (id: string, host = 'api.example.com'): PendingGrant => ({
  id,
  server: 'net',
  instance: 'i-1',
  host,
  port: 443,
  waiting: 1,
  createdAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-01T00:01:00Z',
});

const inst = (id: string, state: InstanceView['state'], revision = 1): InstanceView => ({
  id,
  server: 'net',
  client: 'stdio',
  revision,
  state,
  restarts: 0,
  stderrTail: [],
});

describe('server run state', () => {
  it('is Ready once a server answered initialize, Starting before, Failed with the reason, or Stopped', () => {
    const running = { kind: 'running' as const, since: 't' };
    const answered = (i: InstanceView) => ({ ...i, ready: true });
    expect(
      serverRunState([answered(inst('a', running, 2)), answered(inst('b', running, 1))], 'net'),
    ).toEqual({ kind: 'ready', count: 2, oldestRevision: 1 });
    expect(runStateLabel(serverRunState([answered(inst('a', running))], 'net'))).toBe('Ready');
    // Running but silent (a server that hangs before answering) is not Ready.
    const silent = { ...inst('s', running), ready: false };
    expect(runStateLabel(serverRunState([silent], 'net'))).toBe('Starting');
    const failed = inst('c', {
      kind: 'failed',
      at: 't',
      reason: 'launch refused',
      launchError: {
        kind: 'bwrap-missing',
        message: 'bwrap is missing',
        remedy: 'apt install bubblewrap',
      },
    });
    expect(runStateLabel(serverRunState([failed], 'net'))).toBe('Failed');
    expect(serverRunState([failed], 'net')).toMatchObject({
      reason: 'bwrap is missing',
      remedy: 'apt install bubblewrap',
    });
    expect(runStateLabel(serverRunState([], 'net'))).toBe('Stopped');
    const exited = inst('d', { kind: 'exited', at: 't', code: 0, signal: null, reason: 'idle' });
    expect(runStateLabel(serverRunState([exited], 'net'))).toBe('Stopped');
  });

  it("shows the core's telling stderr lines and fix for a server that failed to start", () => {
    const failed: InstanceView = {
      ...inst('f', { kind: 'failed', at: 't', reason: 'the server crashed 4 times' }),
      stderrTail: ['noise', 'Node.js v20.20.2'],
      failure: {
        lines: ["Error: Cannot find module '/p/s.js'"],
        hint: { kind: 'add-folder', path: '/p/s.js', folder: '/p' },
      },
    };
    expect(serverRunState([failed], 'net')).toEqual({
      kind: 'failed',
      reason: 'the server crashed 4 times',
      lines: ["Error: Cannot find module '/p/s.js'"],
      hint: { kind: 'add-folder', path: '/p/s.js', folder: '/p' },
    });
  });
});

describe('root problems', () => {
  it('maps a refused root of the last launch to its path, with revision and remedy', () => {
    const refused = inst(
      'r',
      {
        kind: 'failed',
        at: 't',
        reason: 'cannot sandbox here',
        launchError: {
          kind: 'root-invalid',
          message: 'root "/data/x" resolves to /etc through a symlink',
          remedy: 'declare the real path /etc instead',
        },
      },
      4,
    );
    expect(rootProblems([refused], 'net')).toEqual({
      '/data/x':
        'At the last launch (revision 4): root "/data/x" resolves to /etc through a symlink. To fix: declare the real path /etc instead',
    });
    const later = inst('s', { kind: 'running', since: 't' }, 5);
    expect(rootProblems([refused, later], 'net')).toEqual({});
  });
});

describe('inbox slice', () => {
  it('decides a grant through the core and drops it at once', async () => {
    const { api, calls } = fakeApi({ 'grants.decide': () => Promise.resolve({ decided: true }) });
    const store = createRootStore(api);
    store.getState().grantsChanged([grant('g1'), grant('g2')]);
    const r = await store.getState().decideGrant('g1', 'allow-session');
    expect(r).toEqual({ ok: true, value: true });
    expect(calls.at(-1)).toEqual({
      op: 'grants.decide',
      input: { id: 'g1', decision: 'allow-session' },
    });
    expect(store.getState().grants.map((g) => g.id)).toEqual(['g2']);
    expect(inboxSelectors.count(store.getState())).toBe(1);
  });

  it('returns a refusal as a value and keeps the item', async () => {
    const error = { kind: 'not-found' as const, message: 'no such grant' };
    const { api } = fakeApi({ 'grants.decide': refusing(error) });
    const store = createRootStore(api);
    store.getState().grantsChanged([grant('g1')]);
    expect(await store.getState().decideGrant('g1', 'deny')).toEqual({ ok: false, error });
    expect(store.getState().grants).toHaveLength(1);
  });
});

describe('desktop notifications and badge', () => {
  it('notifies each new item once, keeps the badge at the count, opens the item on click', () => {
    const store = createRootStore(fakeApi().api);
    const notified: string[] = [];
    const badge: number[] = [];
    let click: (tag: string) => void = () => undefined;
    const off = bindDesktop(store, {
      notify: (n) => notified.push(`${n.tag} ${n.title}`),
      setBadgeCount: (n) => badge.push(n),
      onNotificationClick: (l) => ((click = l), () => undefined),
    });
    store.getState().grantsChanged([grant('g1')]);
    store.getState().grantsChanged([grant('g1'), grant('g2', 'evil.example')]);
    store.getState().approvalsChanged([
      {
        id: 'a1',
        server: 'net',
        instance: 'i',
        tool: 'rm',
        args: {},
        reason: { kind: 'tool-approval' },
        createdAt: 't',
        expiresAt: 't',
      },
    ]);
    expect(notified).toEqual([
      'grant:g1 net wants to reach api.example.com:443',
      'grant:g2 net wants to reach evil.example:443',
      'approval:a1 net wants to call rm',
    ]);
    expect(badge).toEqual([0, 1, 2, 3]);
    click('grant:g2');
    expect(store.getState().screen).toEqual({ kind: 'inbox', focus: 'grant:g2' });
    off();
  });

  it('builds no notice for items already seen', () => {
    expect(newNotices({ grants: [grant('g1')], approvals: [] }, new Set(['grant:g1']))).toEqual([]);
  });
});
