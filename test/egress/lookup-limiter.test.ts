import { describe, expect, it } from 'vitest';
import { LookupSlots, limitedLookup } from '../../main/egress/lookup-limiter';

const slow = (ms: number) => (name: string) =>
  new Promise<string[]>((r) => setTimeout(() => r([`${name}-ip`]), ms));

describe('lookup limiter', () => {
  it('one instance flooding slow lookups does not hold up another', async () => {
    const total = new LookupSlots(2);
    const flooder = limitedLookup(slow(300), { total, timeoutMs: 5000 });
    const other = limitedLookup(slow(10), { total, timeoutMs: 5000 });
    const flood = Array.from({ length: 10 }, (_, i) => flooder(`f${i}`));
    const t0 = Date.now();
    expect(await other('ok.test')).toEqual(['ok.test-ip']);
    expect(Date.now() - t0).toBeLessThan(200);
    expect(await flood[1]).toEqual(['f1-ip']);
  });

  it('gives up waiting after the timeout', async () => {
    const l = limitedLookup(slow(500), { total: new LookupSlots(1), timeoutMs: 50 });
    await expect(l('late.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });
});
