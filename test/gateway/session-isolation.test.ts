/**
 * A hostile server can hurt only its own session: a deeply nested answer is refused at parse time,
 * an exception in one session's handling ends that session alone, and each direction keeps the
 * order in which the server wrote.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_ERRORS } from '../../main/gateway/relay';
import { answerText, hostileSetup } from '../helpers/hostile-sessions';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-isolation-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

const labels = (seen: JSONRPCMessage[]) =>
  seen.flatMap((m) => {
    if ('method' in m && m.method === 'notifications/message')
      return [String((m.params as { data: unknown }).data)];
    if ('method' in m && m.method === 'notifications/progress') return ['progress'];
    if ('result' in m && Array.isArray((m.result as { tools?: unknown }).tools)) return ['LIST'];
    if ('result' in m && (m.result as { content?: unknown }).content) return [answerText(m)];
    return [];
  });

describe('session isolation', () => {
  it('refuses a tools/list answer nested 200,000 deep with a typed error; the neighbour keeps answering', async () => {
    const deep = hostileSetup({ dir, env: { HOSTILE_LIST: 'deep' } });
    cleanup.push(() => deep.supervisor.stopAll());
    const victim = await deep.open();
    const neighbour = await deep.open();
    const answer = await victim.request('tools/list');
    expect('error' in answer && answer.error.code).toBe(RELAY_ERRORS.tooDeep);
    expect(answerText(answer)).toMatch(/nested deeper than 64/);
    expect(
      deep.events.some(
        (e) =>
          e.kind === 'limit.hit' && e.limit === 'messageDepth' && e.instance === victim.session.id,
      ),
    ).toBe(true);
    expect(answerText(await neighbour.call('echo', { message: 'still here' }))).toBe('still here');
    expect(answerText(await victim.call('echo', { message: 'victim too' }))).toBe('victim too');
  });

  it('refuses a deep notification but delivers what the server sent after it', async () => {
    const s = hostileSetup({ dir });
    cleanup.push(() => s.supervisor.stopAll());
    const a = await s.open();
    expect(answerText(await a.call('deep-notification'))).toBe('after deep notification');
    expect(s.events.some((e) => e.kind === 'limit.hit' && e.limit === 'messageDepth')).toBe(true);
  });

  it('an exception in one session ends that session with a JSON-RPC error; the other session goes on', async () => {
    let calls = 0;
    const s = hostileSetup({
      dir,
      gate: (real) => ({
        checkCall: (tool, args, id) => real.checkCall(tool, args, id),
        filterList: (tools) => {
          if (calls++ === 0) throw new TypeError('a bug in the tool gate');
          return real.filterList(tools);
        },
      }),
    });
    cleanup.push(() => s.supervisor.stopAll());
    const victim = await s.open();
    const neighbour = await s.open();
    const answer = await victim.request('tools/list');
    expect(answerText(answer)).toMatch(/error -32603: Warden: .*a bug in the tool gate/);
    await expect.poll(() => victim.session.view().state.kind).toBe('failed');
    expect(victim.session.view().state).toMatchObject({
      reason: expect.stringContaining('a bug in the tool gate') as unknown,
    });
    expect(
      s.events.some(
        (e) =>
          e.kind === 'instance.lifecycle' &&
          e.state === 'failed' &&
          e.instance === victim.session.id &&
          /a bug in the tool gate/.test(e.reason ?? ''),
      ),
    ).toBe(true);
    expect(labels([await neighbour.request('tools/list')])).toEqual(['LIST']);
    expect(answerText(await neighbour.call('echo', { message: 'unharmed' }))).toBe('unharmed');
  });

  it('delivers server messages in the order the server wrote them, across a tools/list that waits for pinning', async () => {
    const s = hostileSetup({ dir, env: { HOSTILE_LIST: 'ordered' } });
    cleanup.push(() => s.supervisor.stopAll());
    const a = await s.open();
    await a.request('tools/list');
    await a.call('interleave');
    await expect.poll(() => labels(a.seen).length).toBe(8);
    expect(labels(a.seen)).toEqual([
      'BEFORE',
      'LIST',
      'AFTER',
      'one',
      'progress',
      'two',
      'result',
      'three',
    ]);
  });
});
