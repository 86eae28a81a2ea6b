/**
 * The host-port egress used where the sandbox has no network namespace of its own (macOS): the
 * proxy and broker run in Warden on a loopback port. Tried here with curl from the host, through
 * HTTP and SOCKS5: allowed names pass, others are refused with the reason, and each is audited.
 * The port asks for the instance's credentials; Node's fetch gets them through the preload.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { defaultPolicy } from '../../app/policy/defaults';
import { startHostPortEgress } from '../../main/egress/host-port-egress';
import { type EgressRuntime, currentEgressRuntime } from '../../main/egress/start-egress';
import { allowApi, bundleEgress, pin } from './egress-harness';

const run = promisify(execFile);
const target = createServer((_req, res) => res.end('from the host\n'));
let port: number;
beforeAll(async () => {
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  port = (target.address() as AddressInfo).port;
});
afterAll(() => target.close());

/** Host-port egress for one instance under the harness's allowlist (api.test allowed). */
async function startHosted(
  instanceId: string,
  runtime: EgressRuntime = currentEgressRuntime('/nonexistent'),
  onDecision: (e: EgressDecisionEvent) => void = () => undefined,
) {
  const network = { ...defaultPolicy().network, ...allowApi };
  const started = await startHostPortEgress({
    network,
    server: 's',
    instanceId,
    runtime,
    onDecision,
    resolve: pin,
  });
  if (!started.ok) throw new Error(started.error.message);
  return started.value;
}

it('allows an allowed name and refuses another, over HTTP and SOCKS5, each decision recorded', async () => {
  const decisions: EgressDecisionEvent[] = [];
  const egress = await startHosted('i-1', undefined, (e) => decisions.push(e));
  try {
    const login = /^http:\/\/(warden:[A-Za-z0-9_-]{32})@127\.0\.0\.1:(\d+)$/.exec(
      egress.env.HTTP_PROXY ?? '',
    );
    expect(login?.[2]).toBe(String(egress.context.egressPort));
    expect(egress.env.ALL_PROXY).toBe(
      `socks5h://${login?.[1]}@127.0.0.1:${egress.context.egressPort}`,
    );
    // Node servers load the fetch preload, which the Seatbelt profile lets them read.
    const { preloadScript } = currentEgressRuntime('/nonexistent');
    expect(egress.env.NODE_OPTIONS).toBe(`--require ${preloadScript}`);
    expect(egress.context.readableFiles).toEqual([preloadScript]);
    const curl = (proxyFlag: string[], url: string) =>
      run('curl', ['-sS', '-o', '-', '-w', ' %{http_code}', ...proxyFlag, url]).then(
        (r) => r.stdout,
        (e: { stdout?: string }) => e.stdout ?? '',
      );
    const http = ['-x', egress.env.HTTP_PROXY!];
    const socks = ['-x', egress.env.ALL_PROXY!];
    expect(await curl(http, `http://api.test:${port}/`)).toBe('from the host\n 200');
    expect(await curl(socks, `http://api.test:${port}/`)).toBe('from the host\n 200');
    expect(await curl(http, `http://other.test:${port}/`)).toMatch(/ 403$/);
    expect(await curl(socks, `http://other.test:${port}/`)).not.toContain('from the host');
    // Another program that finds the port, without the instance's credentials (or with wrong
    // ones), opens nothing: no decision is even asked for.
    const bare = ['-x', `http://127.0.0.1:${egress.context.egressPort}`];
    const wrong = ['-x', `http://warden:guess@127.0.0.1:${egress.context.egressPort}`];
    const bareSocks = ['--socks5-hostname', `127.0.0.1:${egress.context.egressPort}`];
    const wrongSocks = ['-x', `socks5h://warden:guess@127.0.0.1:${egress.context.egressPort}`];
    expect(await curl(bare, `http://api.test:${port}/`)).toMatch(/ 407$/);
    expect(await curl(wrong, `http://api.test:${port}/`)).toMatch(/ 407$/);
    expect(await curl([...bare, '-p'], `http://api.test:${port}/`)).not.toContain('from the host');
    expect(await curl(bareSocks, `http://api.test:${port}/`)).not.toContain('from the host');
    expect(await curl(wrongSocks, `http://api.test:${port}/`)).not.toContain('from the host');
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

it("Node's fetch reaches an allowed name through the preload, with the instance's credentials", async () => {
  const egress = await startHosted('i-2', (await bundleEgress()).runtime);
  try {
    const script = `fetch('http://api.test:${port}/').then((r) => r.text()).then((t) => process.stdout.write(t), (e) => process.stdout.write('failed: ' + (e.cause?.message ?? e.message)))`;
    const env = { PATH: process.env.PATH, ...egress.env };
    const { stdout } = await run(process.execPath, ['-e', script], { env });
    expect(stdout).toBe('from the host\n');
  } finally {
    await egress.close();
  }
});

it('a SOCKS5 login split across packets is read whole; a client offering no login is turned away', async () => {
  const egress = await startHosted('i-3');
  // The credentials are URL-safe (base64url), so the URL holds them as they are.
  const { username: user, password } = new URL(egress.env.ALL_PROXY!);
  const talk = async (steps: Buffer[]): Promise<Buffer> => {
    const sock = connect(egress.context.egressPort!, '127.0.0.1');
    let got = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
    await once(sock, 'connect');
    for (const step of steps) {
      sock.write(step);
      await new Promise((r) => setTimeout(r, 30));
    }
    await new Promise((r) => setTimeout(r, 100));
    sock.destroy();
    return got;
  };
  try {
    const login = Buffer.concat([
      Buffer.from([1, user.length]),
      Buffer.from(user),
      Buffer.from([password.length]),
      Buffer.from(password),
    ]);
    const name = Buffer.from('api.test');
    const request = Buffer.concat([
      Buffer.from([5, 1, 0, 3, name.length]),
      name,
      Buffer.from([port >> 8, port & 255]),
      Buffer.from('GET / HTTP/1.0\r\n\r\n'),
    ]);
    const ok = await talk([
      Buffer.from([5, 1, 2]),
      login.subarray(0, 5),
      login.subarray(5),
      request,
    ]);
    expect([...ok.subarray(0, 4)]).toEqual([5, 2, 1, 0]);
    expect(ok[5]).toBe(0); // request granted
    expect(ok.toString()).toContain('from the host');
    // Only "no authentication" offered: no acceptable method.
    expect([...(await talk([Buffer.from([5, 1, 0])]))]).toEqual([5, 0xff]);
    // The right user with a wrong password: the login fails and nothing is opened.
    const wrong = Buffer.concat([login.subarray(0, login.length - 1), Buffer.from('!')]);
    expect([...(await talk([Buffer.from([5, 1, 2]), wrong, request]))]).toEqual([5, 2, 1, 1]);
  } finally {
    await egress.close();
  }
});
