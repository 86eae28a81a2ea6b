/**
 * Approvals remembered: "for this session" lets the same call of the same instance through, and
 * "always" saves an allowed-call pattern (as offered or as edited) that the gate then honours;
 * a pattern that cannot be saved decides nothing.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import type { CallPattern } from '../../app/policy/call-patterns';
import type { ToolsPolicy } from '../../app/policy/policy-schema';
import { ApprovalInbox } from './approval-inbox';
import { createToolGate } from './tool-gate';
import { DriftRegistry } from './tool-drift';

function setup(persistFails = false) {
  const events: AuditEventInput[] = [];
  const tools: ToolsPolicy = { ...defaultPolicy().tools, approval: ['write'] };
  let policy = tools;
  const saved: CallPattern[] = [];
  const approvals = new ApprovalInbox(
    (e) => events.push(e),
    (_server, pattern) => {
      if (persistFails) return Promise.reject(new Error('the managed policy forbids it'));
      saved.push(pattern);
      policy = { ...policy, allowedCalls: [...(policy.allowedCalls ?? []), pattern] };
      return Promise.resolve();
    },
  );
  const gate = (instance: string) =>
    createToolGate({
      server: 'fs',
      instance,
      policy: () => policy,
      pin: () => Promise.resolve(),
      drift: new DriftRegistry(),
      approvals,
      audit: (e) => events.push(e),
      redact: (v) =>
        JSON.parse(JSON.stringify(v).replaceAll('hunter2-secret', '«secret:PW»')) as unknown,
    });
  return { approvals, gate, events, saved };
}

const args = { path: '/srv/notes.txt', text: 'hello' };

describe('remembered approvals', () => {
  it('shows the reason and the full arguments, and offers the exact values as the pattern', () => {
    const { approvals, gate } = setup();
    void gate('fs#1').checkCall('write', args, 1);
    expect(approvals.list()[0]).toMatchObject({
      reason: { kind: 'tool-approval' },
      args,
      pattern: { path: 'match=/srv/notes\\.txt', text: 'match=hello' },
    });
  });

  it('for this session: the same call of the same instance passes, another instance still asks', async () => {
    const { approvals, gate, events } = setup();
    const g = gate('fs#1');
    const first = g.checkCall('write', args, 1);
    expect(await approvals.decide(approvals.list()[0]!.id, 'approve-session')).toMatchObject({
      ok: true,
      value: true,
    });
    expect(await first).toEqual({ allow: true });
    expect(await g.checkCall('write', args, 2)).toEqual({ allow: true });
    expect(events.at(-1)).toMatchObject({ kind: 'approval.decided', by: 'session' });
    void g.checkCall('write', { ...args, text: 'other' }, 3);
    void gate('fs#2').checkCall('write', args, 4);
    expect(approvals.list()).toHaveLength(2);
    // fs#1 restarted under the same id would ask again: its session approval is forgotten.
    approvals.keepInstances(['fs#2']);
    expect(approvals.list().map((a) => a.instance)).toEqual(['fs#2']);
    void g.checkCall('write', args, 5);
    expect(approvals.list()).toHaveLength(2);
  });

  it('a call still waiting when its instance stops is refused, audited as ended, and leaves the inbox', async () => {
    const { approvals, gate, events } = setup();
    const waiting = gate('fs#1').checkCall('write', args, 1);
    void gate('fs#2').checkCall('write', args, 2);
    approvals.keepInstances(['fs#2']);
    expect(await waiting).toMatchObject({ allow: false });
    expect(approvals.list().map((a) => a.instance)).toEqual(['fs#2']);
    expect(events.filter((e) => e.kind === 'approval.decided')).toEqual([
      expect.objectContaining({ instance: 'fs#1', decision: 'deny', by: 'ended' }),
    ]);
    // Deciding the refused card afterwards changes nothing.
    const gone = events.find((e) => e.kind === 'approval.decided') as { approvalId: string };
    expect(await approvals.decide(gone.approvalId, 'approve')).toMatchObject({
      ok: true,
      value: false,
    });
  });

  it('always: the edited pattern is saved, audited, and later matching calls are not asked', async () => {
    const { approvals, gate, events, saved } = setup();
    const g = gate('fs#1');
    const first = g.checkCall('write', args, 1);
    const edited = { path: 'match=/srv/[a-z]+\\.txt', text: 'max-length=100' };
    expect((await approvals.decide(approvals.list()[0]!.id, 'approve-always', edited)).ok).toBe(
      true,
    );
    expect(await first).toEqual({ allow: true });
    expect(saved).toEqual([{ tool: 'write', args: edited }]);
    expect(events.find((e) => e.kind === 'approval.decided')).toMatchObject({
      remember: 'always',
      pattern: 'write path=match=/srv/[a-z]+\\.txt text=max-length=100',
    });
    expect(await gate('fs#9').checkCall('write', { path: '/srv/todo.txt', text: 'x' }, 2)).toEqual({
      allow: true,
    });
    expect(events.at(-1)).toMatchObject({ kind: 'approval.decided', by: 'policy' });
    void g.checkCall('write', { path: '/etc/passwd', text: 'x' }, 3);
    void g.checkCall('write', { path: '/srv/todo.txt', text: 'x', mode: 'append' }, 4);
    expect(approvals.list()).toHaveLength(2);
  });

  it('always is not offered when the card hides a secret, and a refused save decides nothing', async () => {
    const { approvals, gate } = setup();
    void gate('fs#1').checkCall('write', { path: '/srv/a', text: 'hunter2-secret' }, 1);
    const [card] = approvals.list();
    expect(card).toMatchObject({ args: { text: '«secret:PW»' } });
    expect(card!.pattern).toBeUndefined();
    expect(await approvals.decide(card!.id, 'approve-always')).toMatchObject({ ok: false });

    const failing = setup(true);
    void failing.gate('fs#1').checkCall('write', args, 1);
    const id = failing.approvals.list()[0]!.id;
    expect(await failing.approvals.decide(id, 'approve-always')).toMatchObject({
      ok: false,
      error: { kind: 'persist-failed' },
    });
    expect(await failing.approvals.decide(id, 'approve-always', { path: 'match=(' })).toMatchObject(
      { ok: false, error: { kind: 'invalid-pattern' } },
    );
    expect(failing.approvals.list()).toHaveLength(1);
    expect(await failing.approvals.decide(id, 'deny')).toMatchObject({ ok: true, value: true });
  });
});
