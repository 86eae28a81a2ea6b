/**
 * The host-port egress used where the sandbox has no network namespace of its own (macOS): the
 * proxy and broker run in Warden on a loopback port. Tried here with curl from the host, through
 * HTTP and SOCKS5: allowed names pass, others are refused with the reason, and each is audited.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { defaultPolicy } from '../../app/policy/defaults';
import { startHostPortEgress } from '../../main/egress/host-port-egress';
import { currentEgressRuntime } from '../../main/egress/start-egress';

const run = promisify(execFile);
const target = createServer((_req, res) => res.end('from the host\n'));
let port: number;
beforeAll(async () => {
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  port = (target.address() as AddressInfo).port;
});
afterAll(() => target.close());

it('allows an allowed name and refuses another, over HTTP and SOCKS5, each decision recorded', async () => {
  const decisions: EgressDecisionEvent[] = [];
  const network = {
    ...defaultPolicy().network,
    mode: 'allowlist' as const,
    allow: ['api.test'],
    allowAddresses: ['127.0.0.1'],
  };
  const started = await startHostPortEgress({
    network,
    server: 's',
    instanceId: 'i-1',
    runtime: currentEgressRuntime('/nonexistent'),
    onDecision: (e) => decisions.push(e),
    resolve: [
      { name: 'api.test', addresses: ['127.0.0.1'] },
      { name: 'other.test', addresses: ['127.0.0.1'] },
    ],
  });
  if (!started.ok) throw new Error(started.error.message);
  const egress = started.value;
  try {
    expect(egress.env.HTTP_PROXY).toBe(`http://127.0.0.1:${egress.egressPort}`);
    // Node servers load the fetch preload, which the Seatbelt profile lets them read.
    const { preloadScript } = currentEgressRuntime('/nonexistent');
    expect(egress.env.NODE_OPTIONS).toBe(`--require ${preloadScript}`);
    expect(egress.context.readableFiles).toEqual([preloadScript]);
    const curl = (proxyFlag: string[], url: string) =>
      run('curl', ['-sS', '-o', '-', '-w', ' %{http_code}', ...proxyFlag, url]).then(
        (r) => r.stdout,
        (e: { stdout?: string }) => e.stdout ?? '',
      );
    const http = ['-x', `http://127.0.0.1:${egress.egressPort}`];
    const socks = ['--socks5-hostname', `127.0.0.1:${egress.egressPort}`];
    expect(await curl(http, `http://api.test:${port}/`)).toBe('from the host\n 200');
    expect(await curl(socks, `http://api.test:${port}/`)).toBe('from the host\n 200');
    expect(await curl(http, `http://other.test:${port}/`)).toMatch(/ 403$/);
    expect(await curl(socks, `http://other.test:${port}/`)).not.toContain('from the host');
    expect(decisions.map((d) => [d.host, d.decision])).toEqual([
      ['api.test', 'allowed'],
      ['api.test', 'allowed'],
      ['other.test', 'refused'],
      ['other.test', 'refused'],
    ]);
  } finally {
    await egress.close();
  }
});
