import { describe, expect, it } from 'vitest';
import { createCallHandler } from './call-handler';
import type { Reply } from '../../app/contract/reply';

type Event = { trusted: boolean };
const calls: [unknown, unknown][] = [];
const core = {
  handle: (op: unknown, input: unknown): Promise<Reply> => {
    calls.push([op, input]);
    if (op === 'boom') return Promise.reject(new Error('secret internals'));
    return Promise.resolve({ ok: true, value: { op } });
  },
};
const handler = createCallHandler((e: Event) => e.trusted, core);

describe('warden:call handler', () => {
  it('passes a trusted, well-formed call to the core', async () => {
    expect(await handler({ trusted: true }, 'servers.list', {})).toEqual({
      ok: true,
      value: { op: 'servers.list' },
    });
    expect(calls.at(-1)).toEqual(['servers.list', {}]);
  });

  it('refuses an untrusted sender before looking at its payload', async () => {
    const before = calls.length;
    const reply = await handler({ trusted: false }, 'servers.remove', { name: 'x' });
    expect(reply).toMatchObject({ ok: false, error: { kind: 'unauthorized' } });
    expect(calls.length).toBe(before);
  });

  it('refuses malformed calls', async () => {
    const before = calls.length;
    for (const args of [[], [42, {}], ['x'.repeat(200), {}], ['servers.list', {}, 'extra']]) {
      const reply = await handler({ trusted: true }, ...args);
      expect(reply).toMatchObject({ ok: false, error: { kind: 'invalid-input' } });
    }
    expect(calls.length).toBe(before);
  });

  it('turns a core failure into an internal error without its details', async () => {
    const reply = await handler({ trusted: true }, 'boom', {});
    expect(reply).toEqual({
      ok: false,
      error: { kind: 'internal', message: 'the core failed to answer' },
    });
  });
});
