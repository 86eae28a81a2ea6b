/**
 * What waits in the Inbox is announced once per item, by whichever host raises notifications
 * where no page does (`warden serve`, the app without a window).
 */
import { describe, expect, it } from 'vitest';
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
    notifyInbox(
      core,
      (n) => seen.push(n.tag),
      () => wanted,
    );
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
});
