/**
 * The request guard accepts the per-run name and 127.0.0.1 on the bound port, each with its own
 * Origin only, and nothing else: other `*.localhost` names, another run's name, other ports.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createRequestGuard, newRunHostName } from './request-guard';

const port = 4312;
const run = `${'3f'.repeat(16)}.localhost`;
const token = 'T'.repeat(43);
const guard = createRequestGuard({ address: '127.0.0.1', port, hostName: run, token });
const perRun = `http://${run}:${port}`;
const fallback = `http://127.0.0.1:${port}`;

/** A request with these headers (undefined ones left out). */
function req(headers: Record<string, string | undefined>): IncomingMessage {
  const set = Object.entries(headers).filter(([, v]) => v !== undefined);
  return { headers: Object.fromEntries(set.map(([k, v]) => [k.toLowerCase(), v])) } as never;
}
const upgrade = (host: string, origin: string | undefined) =>
  guard.checkUpgrade(
    req({
      Host: host,
      Origin: origin,
      'Sec-WebSocket-Protocol': `warden.v1, warden.token.${token}`,
    }),
  );

describe('newRunHostName', () => {
  it('is 128 random bits in one lowercase DNS label under localhost, new each time', () => {
    const names = new Set(Array.from({ length: 50 }, () => newRunHostName()));
    expect(names.size).toBe(50);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{32}\.localhost$/);
  });
});

describe('createRequestGuard', () => {
  it('names the per-run origin first and 127.0.0.1 as the fallback', () => {
    expect(guard.origin).toBe(perRun);
    expect(guard.fallbackOrigin).toBe(fallback);
  });

  it('accepts the per-run Host and the fallback Host, each as its own origin', () => {
    expect(guard.checkHttp(req({ Host: `${run}:${port}` }))).toBeUndefined();
    expect(guard.checkHttp(req({ Host: `${run.toUpperCase()}:${port}` }))).toBeUndefined();
    expect(guard.checkHttp(req({ Host: `127.0.0.1:${port}` }))).toBeUndefined();
    expect(guard.originOf(req({ Host: `${run}:${port}` }))).toBe(perRun);
    expect(guard.originOf(req({ Host: `127.0.0.1:${port}` }))).toBe(fallback);
  });

  it.each([
    `other.localhost:${port}`,
    `${'ab'.repeat(16)}.localhost:${port}`,
    `x.${run}:${port}`,
    `${run}:${port + 1}`,
    run,
    `localhost:${port}`,
    `127.0.0.1:${port + 1}`,
    `[::1]:${port}`,
  ])('refuses Host %s (421), without naming the per-run address', (host) => {
    const refusal = guard.checkHttp(req({ Host: host }));
    expect(refusal?.status).toBe(421);
    expect(refusal?.message).not.toContain(run);
    expect(guard.originOf(req({ Host: host }))).toBeUndefined();
  });

  it('refuses an Origin of another run, another name or the other address', () => {
    const otherRun = `http://${'ab'.repeat(16)}.localhost:${port}`;
    for (const origin of [otherRun, `http://other.localhost:${port}`, fallback, 'null']) {
      const refusal = guard.checkHttp(req({ Host: `${run}:${port}`, Origin: origin }));
      expect(refusal?.status, origin).toBe(403);
      expect(refusal?.message).not.toContain(run);
    }
    expect(guard.checkHttp(req({ Host: `127.0.0.1:${port}`, Origin: perRun }))?.status).toBe(403);
    expect(guard.checkHttp(req({ Host: `${run}:${port}`, Origin: perRun }))).toBeUndefined();
  });

  it('upgrades from the origin of the Host it came in on only, with the token', () => {
    expect(upgrade(`${run}:${port}`, perRun)).toBeUndefined();
    expect(upgrade(`127.0.0.1:${port}`, fallback)).toBeUndefined();
    expect(upgrade(`${run}:${port}`, fallback)?.status).toBe(403);
    expect(upgrade(`127.0.0.1:${port}`, perRun)?.status).toBe(403);
    expect(upgrade(`${run}:${port}`, undefined)?.status).toBe(403);
    expect(upgrade(`other.localhost:${port}`, `http://other.localhost:${port}`)?.status).toBe(421);
  });

  it('without a per-run name accepts the bound address only (the MCP gateway)', () => {
    const bare = createRequestGuard({ address: '127.0.0.1', port, token });
    expect(bare.origin).toBe(fallback);
    expect(bare.checkHttp(req({ Host: `127.0.0.1:${port}`, Origin: fallback }))).toBeUndefined();
    expect(bare.checkHttp(req({ Host: `${run}:${port}` }))?.status).toBe(421);
  });
});
