/**
 * What waits in the Inbox is announced once per item, by whichever host raises notifications
 * where no page does (`warden serve`, the app without a window).
 */
import { describe, expect, it, vi } from 'vitest';
import type { EventName } from '../../app/contract/contract';
import type { PendingGrant } from '../../app/contract/grants';
import type { PendingApproval } from '../../app/contract/tools';
import { notifyInbox } from './inbox-notifier';

function fakeCore() {
  let listener: ((event: EventName, payload: unknown) => void) | undefined;
  return {
    subscribe(l: (event: EventName, payload: unknown) => void) {
      listener = l;
      return () => (listener = undefined);
    },
    emit: (event: EventName, payload: unknown) => listener?.(event, payload),
  };
}

const grant = (id: string, host = 'api.example.com'): PendingGrant => ({
  id,
  server: 'net',
  instance: 'net#1',
  host,
  port: 443,
  waiting: 1,
  createdAt: 't',
  expiresAt: 't',
});
const approval = (id: string): PendingApproval => ({
  id,
  server: 'files',
  instance: 'files#1',
  tool: 'delete_file',
  args: {},
  reason: { kind: 'tool-approval' },
  createdAt: 't',
  expiresAt: 't',
});

describe('notifyInbox', () => {
  it('announces each new item once, whatever else changes in the Inbox', () => {
    const core = fakeCore();
    const seen: string[] = [];
    const off = notifyInbox(core, (n) => seen.push(`${n.tag} ${n.title}`));
    core.emit('grants.changed', [grant('g1')]);
    core.emit('approvals.changed', [approval('a1')]);
    core.emit('grants.changed', [grant('g1'), grant('g2', 'evil.example')]);
    core.emit('folders.changed', []);
    core.emit('grants.changed', [grant('g2', 'evil.example')]);
    expect(seen).toEqual([
      'grant:g1 net wants to reach api.example.com:443',
      'approval:a1 files wants to call delete_file',
      'grant:g2 net wants to reach evil.example:443',
    ]);
    off();
    core.emit('grants.changed', [grant('g3')]);
    expect(seen).toHaveLength(3);
  });

  it('announces nothing while not wanted, and not later either', () => {
    const core = fakeCore();
    const seen: string[] = [];
    let wanted = false;
    notifyInbox(core, (n) => seen.push(n.tag), { wanted: () => wanted });
    core.emit('grants.changed', [grant('g1')]);
    wanted = true;
    core.emit('grants.changed', [grant('g1'), grant('g2')]);
    expect(seen).toEqual(['grant:g2']);
  });

  it('ignores other events and payloads that are not lists', () => {
    const core = fakeCore();
    const seen: string[] = [];
    notifyInbox(core, (n) => seen.push(n.tag));
    core.emit('drift.changed', [grant('g1')]);
    core.emit('grants.changed', { not: 'a list' });
    expect(seen).toEqual([]);
  });

  it('announces a flood as a few notices and then one count per window', () => {
    vi.useFakeTimers();
    try {
      const core = fakeCore();
      const seen: string[] = [];
      const off = notifyInbox(core, (n) => seen.push(`${n.tag} ${n.title}`), {
        budget: { notices: 2, windowMs: 1000 },
      });
      const grants: PendingGrant[] = [];
      for (let i = 1; i <= 6; i++) {
        grants.push(grant(`g${i}`, `h${i}.example`));
        core.emit('grants.changed', [...grants]);
      }
      expect(seen).toEqual([
        'grant:g1 net wants to reach h1.example:443',
        'grant:g2 net wants to reach h2.example:443',
      ]);
      vi.advanceTimersByTime(1000);
      expect(seen.slice(2)).toEqual(["inbox 4 more requests came to Warden's Inbox"]);
      // The summary counts against the new window: one more item goes out, the next waits.
      grants.push(grant('g7'), grant('g8'));
      core.emit('grants.changed', [...grants]);
      expect(seen.slice(3)).toEqual(['grant:g7 net wants to reach api.example.com:443']);
      off();
      vi.advanceTimersByTime(5000);
      expect(seen).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
