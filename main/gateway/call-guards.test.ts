/**
 * The call guards' policy modes: what a credential in a result or a secret in the arguments
 * does under redact, block, ask and off, and that no audit event ever holds a value.
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { CredentialMode, Policy } from '../../app/policy/policy-schema';
import { standaloneGuards } from '../../test/helpers/call-guards';

const SECRET = { name: 'DB_PASSWORD', value: 'correct-horse-battery' };
const OWN = { name: 'API_TOKEN', value: 'own-token-of-this-server' };
const JWT =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-guards-'));
  await writeFile(join(dir, 'a.txt'), 'a');
  // A dangling symlink: a write through it would land outside the folder.
  await symlink('/etc/warden-guards-never-there', join(dir, 'dangling'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function guards(mode: CredentialMode | undefined, edit: (p: Policy) => void = () => {}) {
  const policy = defaultPolicy();
  if (mode) policy.tools.credentials = mode;
  edit(policy);
  const { guards: g, events, approvals } = standaloneGuards(policy, [SECRET, OWN], [OWN]);
  return { g, events, approvals };
}

const result = { content: [{ type: 'text', text: `pw ${SECRET.value} token ${JWT}` }] };

describe('call guards', () => {
  it('redact (the default) replaces both kinds for the client and audits kinds only', () => {
    const { g, events } = guards(undefined);
    const v = g.checkResult('t', result, 7);
    expect(v).toEqual({
      kind: 'replace',
      result: {
        content: [{ type: 'text', text: 'pw «secret:DB_PASSWORD» token «credential:jwt»' }],
      },
    });
    expect(events).toMatchObject([
      { kind: 'credential.found', where: 'result', action: 'redacted', requestId: 7 },
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET.value);
    expect(JSON.stringify(events)).not.toContain(JWT);
    expect(g.checkResult('t', { content: [{ type: 'text', text: 'nothing' }] }, 8)).toEqual({
      kind: 'pass',
    });
  });

  it('block and ask withhold the result; off lets it through', () => {
    for (const mode of ['block', 'ask'] as const) {
      const { g, events } = guards(mode);
      const v = g.checkResult('t', result, 1);
      expect(v.kind).toBe('refuse');
      expect(JSON.stringify(v)).not.toContain(SECRET.value);
      expect(events[0]).toMatchObject({ action: 'blocked', outcome: 'refused' });
    }
    expect(guards('off').g.checkResult('t', result, 1)).toEqual({ kind: 'pass' });
  });

  it("refuses a call carrying another server's secret, asks under ask, and ignores it under off", async () => {
    const args = { body: `here: ${SECRET.value}` };
    const blocked = guards(undefined);
    expect(blocked.g.checkArgs('post', args, 1)).toMatchObject({ allow: false });
    expect(JSON.stringify(blocked.events)).not.toContain(SECRET.value);

    const asked = guards('ask');
    const pending = asked.g.checkArgs('post', args, 2);
    expect(pending).toBeInstanceOf(Promise);
    const [approval] = asked.approvals.list();
    expect(JSON.stringify(approval)).not.toContain(SECRET.value);
    await asked.approvals.decide(approval!.id, 'approve');
    expect(await pending).toEqual({ allow: true });

    expect(guards('off').g.checkArgs('post', args, 3)).toEqual({ allow: true });
    // The server's own secret is not leaving it.
    expect(blocked.g.checkArgs('post', { body: OWN.value }, 5)).toEqual({ allow: true });
    expect(blocked.g.checkResult('t', { text: OWN.value }, 6)).toEqual({
      kind: 'replace',
      result: { text: '«secret:API_TOKEN»' },
    });
    expect(blocked.g.checkArgs('post', { body: 'plain' }, 4)).toEqual({ allow: true });
  });

  it('an argument rule refuses with the rule named and the arguments redacted in the audit', async () => {
    const { g, events } = guards(undefined, (p) => {
      p.filesystem.roots.push({ path: dir, access: 'write' });
      p.tools.argRules = [{ tool: '*', arg: 'path', rule: 'within-roots' }];
    });
    expect(await g.checkArgs('write', { path: join(dir, 'a.txt') }, 1)).toEqual({ allow: true });
    expect(await g.checkArgs('write', { path: join(dir, 'new/file.txt') }, 2)).toEqual({
      allow: true,
    });
    const dangling = await g.checkArgs(
      'write',
      { path: join(dir, 'dangling'), note: SECRET.value },
      3,
    );
    expect(dangling).toMatchObject({
      allow: false,
      message: expect.stringContaining('argument rule *:path:within-roots') as string,
    });
    expect(events.find((e) => e.kind === 'tool.arg-refused')).toMatchObject({
      rule: '*:path:within-roots',
      args: { note: '«secret:DB_PASSWORD»' },
    });
  });
});
