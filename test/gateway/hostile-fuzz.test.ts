/**
 * A hostile server, scripted (test/fixtures/hostile-jsonrpc-server.mjs), against the real relay,
 * tool gate and supervisor. Each case runs in a fresh session beside a neighbour session and
 * checks that the core stays up (an escaped error would fail the run), the neighbour keeps
 * answering, memory stays bounded, and the client gets a clear answer or error. Seeded, a few
 * seconds in all.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_ERRORS } from '../../main/gateway/relay';
import { type RawSession, answerText, hostileSetup } from '../helpers/hostile-sessions';

const MB = 1024 * 1024;
const SEED = 20261201;

let dir: string;
let s: ReturnType<typeof hostileSetup>;
let neighbour: RawSession;
let baseline: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-fuzz-'));
  s = hostileSetup({ dir, maxMessageBytes: MB });
  neighbour = await s.open();
  baseline = process.memoryUsage().rss;
});
afterAll(async () => {
  await s.supervisor.stopAll();
  await rm(dir, { recursive: true, force: true });
});

const codeOf = (m: JSONRPCMessage) => ('error' in m ? m.error.code : undefined);

interface Case {
  name: string;
  behaviour: string;
  args?: Record<string, unknown>;
  check: (answer: JSONRPCMessage, victim: RawSession) => void | Promise<void>;
}

const cases: Case[] = [
  {
    name: 'an answer nested 200,000 deep',
    behaviour: 'deep',
    check: (answer) => {
      expect(codeOf(answer)).toBe(RELAY_ERRORS.tooDeep);
      expect(answerText(answer)).toMatch(/nested deeper than 64 levels; it was refused unread/);
    },
  },
  {
    name: 'a notification nested 100,000 deep before the answer',
    behaviour: 'deep-notification',
    check: (answer) => expect(answerText(answer)).toBe('after deep notification'),
  },
  {
    name: 'a 4 MB string over a 1 MB limit',
    behaviour: 'huge-string',
    check: (answer) => {
      expect(codeOf(answer)).toBe(RELAY_ERRORS.tooLarge);
      expect(answerText(answer)).toMatch(/over the limit of 1048576 bytes/);
    },
  },
  {
    name: 'invalid UTF-8 inside a string',
    behaviour: 'invalid-utf8',
    check: (answer) => expect(answerText(answer)).toContain('\ufffd'),
  },
  {
    name: 'the same answer twice',
    behaviour: 'twice',
    check: async (answer, victim) => {
      expect(answerText(answer)).toBe('first answer');
      expect(answerText(await victim.call('echo', { message: 'next' }))).toBe('next');
      expect(victim.seen.filter((m) => answerText(m) === 'second answer')).toEqual([]);
      expect(victim.session.view().stderrTail.join('\n')).toMatch(/\[dropped\] an answer/);
    },
  },
  {
    name: 'answers to requests never sent (unknown ids)',
    behaviour: 'stray',
    check: (answer, victim) => {
      expect(answerText(answer)).toBe('real answer');
      const ids = victim.seen.flatMap((m) => ('id' in m ? [m.id] : []));
      expect(ids).not.toContain(987654);
      expect(ids).not.toContain('never-sent');
    },
  },
  {
    name: '__proto__ and constructor keys',
    behaviour: 'proto',
    check: (answer) => {
      expect(answerText(answer)).toBe('proto');
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      expect((answer as { result: { isError?: unknown } }).result.isError).toBeUndefined();
    },
  },
  {
    name: 'an answer written seven bytes at a time',
    behaviour: 'partial',
    check: (answer) => expect(answerText(answer)).toBe('pieced together'),
  },
  {
    name: 'junk lines between messages',
    behaviour: 'junk',
    check: (answer) => expect(answerText(answer)).toBe('after junk'),
  },
  {
    name: 'seeded garbage: raw bytes, broken JSON, deep arrays, odd ids',
    behaviour: 'random',
    args: { seed: SEED, count: 300 },
    check: (answer) => expect(answerText(answer)).toBe('after garbage'),
  },
  {
    name: 'notifications interleaved with the answer',
    behaviour: 'interleave',
    check: async (answer, victim) => {
      const last = (m: JSONRPCMessage | undefined) =>
        m && 'method' in m ? (m.params as { data?: unknown }).data : undefined;
      await expect.poll(() => last(victim.seen.at(-1))).toBe('three');
      const order = victim.seen
        .slice(-5)
        .map((m) => ('method' in m ? m.method.split('/')[1] : answerText(m)));
      expect(order).toEqual(['message', 'progress', 'message', 'result', 'message']);
      expect(answerText(answer)).toBe('result');
    },
  },
  {
    name: 'a request from the server to the client',
    behaviour: 'request',
    check: (answer, victim) => {
      expect(answerText(answer)).toBe('asked');
      expect(victim.seen.some((m) => 'method' in m && m.method === 'sampling/createMessage')).toBe(
        true,
      );
    },
  },
];

describe(`hostile server fuzz (seed ${SEED})`, () => {
  it.each(cases)('$name', async ({ behaviour, args, check }) => {
    const victim = await s.open();
    const answer = await victim.call(behaviour, args);
    await check(answer, victim);
    expect(answerText(await neighbour.call('echo', { message: behaviour }))).toBe(behaviour);
    expect(victim.session.view().state.kind).toBe('running');
    expect(process.memoryUsage().rss - baseline).toBeLessThan(256 * MB);
    await victim.close();
  });

  it('a server that never answers: other calls go on, and ending the session fails the call clearly', async () => {
    const victim = await s.open();
    const pending = victim.call('silent');
    expect(answerText(await victim.call('echo', { message: 'not blocked' }))).toBe('not blocked');
    expect(answerText(await neighbour.call('echo', { message: 'fine' }))).toBe('fine');
    await victim.session.stop();
    expect(answerText(await pending)).toMatch(/error -32002: Warden: stopped by the user/);
  });

  it('a request the client cancelled is no longer waited for', async () => {
    const victim = await s.open();
    void victim.call('silent');
    const id = victim.seen.length; // the ids are 1, 2, …: initialize was 1, this call is 2
    await victim.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: 'gave up' },
    });
    await victim.session.stop();
    expect(victim.seen.slice(id).some((m) => 'error' in m && m.id === 2)).toBe(false);
  });
});
