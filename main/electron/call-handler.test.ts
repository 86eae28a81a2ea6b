import { describe, expect, it } from 'vitest';
import { createCallHandler } from './call-handler';
import type { Reply } from '../../app/contract/reply';

const calls: [unknown, unknown][] = [];
const core = {
  handle: (op: unknown, input: unknown): Promise<Reply> => {
    calls.push([op, input]);
    return Promise.resolve({ ok: true, value: { op } });
  },
};
const handler = createCallHandler(core);

describe('warden:call handler', () => {
  it('passes a well-formed call to the core', async () => {
    expect(await handler('servers.list', {})).toEqual({ ok: true, value: { op: 'servers.list' } });
    expect(calls.at(-1)).toEqual(['servers.list', {}]);
  });

  it('refuses malformed calls', async () => {
    const before = calls.length;
    for (const args of [[], [42, {}], ['x'.repeat(200), {}], ['servers.list', {}, 'extra']]) {
      const reply = await handler(...args);
      expect(reply).toMatchObject({ ok: false, error: { kind: 'invalid-input' } });
    }
    expect(calls.length).toBe(before);
  });
});
