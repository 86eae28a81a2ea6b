/**
 * A tool's name comes from the wire, as long as the client likes: the gate's refusals and the
 * audit rows of a guarded call (credentials found, refused, asked about and decided) keep it cut
 * to 128 characters, as the call's own row does, so that one call cannot make a row or a refusal
 * of megabytes. The full name still decides: two names alike in their first 128 characters are
 * not one tool for an approval remembered for the session.
 */
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { standaloneGuards } from '../../test/helpers/call-guards';
import type { CallVerdict } from './relay';

const SECRET = { name: 'DEPLOY_KEY', value: 'dk-0123456789abcdef' };
const long = (tail: string) => `${'t'.repeat(100_000)}${tail}`;

const toolsIn = (events: readonly object[]) =>
  events.map((e) => ('tool' in e ? String(e.tool) : '')).filter(Boolean);

describe('a long tool name in what the guards record and answer', () => {
  it('is cut in the refusal and in the credential row', () => {
    const { guards, events } = standaloneGuards(defaultPolicy(), [SECRET]);
    const verdict = guards.checkArgs(long('a'), { key: SECRET.value }, 1) as CallVerdict;
    expect(verdict.allow).toBe(false);
    expect(!verdict.allow && verdict.message.length).toBeLessThan(400);
    expect(toolsIn(events).map((t) => t.length)).toEqual([129]);
  });

  it('is cut in the approval rows, and the full name keeps two tools apart', async () => {
    const policy = defaultPolicy();
    policy.tools.credentials = 'ask';
    const { guards, events, approvals } = standaloneGuards(policy, [SECRET]);
    const asked = guards.checkArgs(long('a'), { key: SECRET.value }, 1) as Promise<CallVerdict>;
    const [pending] = approvals.list();
    expect(await approvals.decide(pending!.id, 'approve-session')).toMatchObject({ ok: true });
    expect((await asked).allow).toBe(true);
    // Alike in its first 128 characters but another tool: asked about again, not let through.
    void guards.checkArgs(long('b'), { key: SECRET.value }, 2);
    expect(approvals.list()).toHaveLength(1);
    expect(toolsIn(events).every((t) => t.length === 129)).toBe(true);
    expect(events.map((e) => e.kind)).toEqual([
      'credential.found',
      'approval.requested',
      'approval.decided',
      'credential.found',
      'approval.requested',
    ]);
  });
});
