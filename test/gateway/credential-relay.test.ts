/**
 * Credentials a hostile server puts in its answers, through the real relay: in a result and in a
 * JSON-RPC error message, redacted for the client and for the log; under `block`, withheld.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { standaloneGuards } from '../helpers/call-guards';
import { answerText, hostileSetup } from '../helpers/hostile-sessions';

// Made-up credentials in their formats (not real ones).
const GITHUB = 'ghp_Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pz0Xc1Vb2Nm';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJkZW4ifQ.c2lnbmF0dXJlLW9mLWEtdGVzdA';

const policy = defaultPolicy();
const guarded = standaloneGuards(policy, []);
let dir: string;
let s: ReturnType<typeof hostileSetup>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-cred-relay-'));
  s = hostileSetup({
    dir,
    gate: (real) => ({
      filterList: (tools) => real.filterList(tools),
      checkCall: (tool, args, id) => real.checkCall(tool, args, id),
      checkResult: (tool, result, id) => guarded.guards.checkResult(tool, result, id),
    }),
  });
});
afterAll(async () => {
  await s.supervisor.stopAll();
  await rm(dir, { recursive: true, force: true });
});

describe('credentials in server answers', () => {
  it('are redacted in results and in error messages, for the client and the log', async () => {
    const session = await s.open();
    const result = await session.call('echo', { message: `token ${JWT} here` });
    expect(answerText(result)).toBe('token «credential:jwt» here');
    // The fixture answers an unknown behaviour with an error naming it.
    const error = await session.call(GITHUB);
    expect(answerText(error)).toBe('error -32601: no behaviour «credential:github-token»');
    await session.close();
    // What the server answered, as logged (the client's own request is logged as it sent it).
    const answers = s.events.filter((e) => e.kind !== 'mcp.request');
    const logged = JSON.stringify([...answers, ...guarded.events]);
    expect(logged).not.toContain(JWT);
    expect(logged).not.toContain(GITHUB);
    expect(guarded.events.map((e) => e.kind === 'credential.found' && e.found)).toEqual([
      [{ kind: 'jwt', count: 1 }],
      [{ kind: 'github-token', count: 1 }],
    ]);
  });

  it('are withheld whole under block', async () => {
    policy.tools.credentials = 'block';
    const session = await s.open();
    const answer = await session.call('echo', { message: `token ${JWT}` });
    expect(answerText(answer)).toMatch(
      /^error -32001: Warden: the result of "behave" held credentials \(jwt\)/,
    );
    expect(JSON.stringify(answer)).not.toContain(JWT);
    await session.close();
  });
});
