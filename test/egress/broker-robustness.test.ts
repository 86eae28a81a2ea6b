/**
 * A server that floods the proxy with connections, or a process that writes garbage on the
 * channel, cannot crash the broker or disturb another instance: each run below happens while a
 * second, well-behaved instance transfers data through its own broker and must succeed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrantInbox } from '../../main/egress/grant-inbox';
import {
  type HostServers,
  type RunResult,
  bundleEgress,
  describeSandboxed,
  runWithEgress,
  startHostServers,
} from './egress-harness';

let hs: HostServers;
const pin = [{ name: 'api.test', addresses: ['127.0.0.1'] }];
const allow = { mode: 'allowlist' as const, allow: ['api.test'], allowAddresses: ['127.0.0.1'] };

/** The well-behaved neighbour: 20 sequential HTTPS requests through its own sandbox and broker. */
function neighbour(): Promise<RunResult> {
  const urls = Array.from({ length: 20 }, (_, i) => `https://api.test:${hs.httpsPort}/n${i}`);
  return runWithEgress({
    network: allow,
    resolve: pin,
    instanceId: 'neighbour',
    command: ['curl', '-fsS', '--cacert', hs.caFile, ...urls],
  });
}

function expectNeighbourOk(r: RunResult): void {
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(Array.from({ length: 20 }, (_, i) => `hello from /n${i}`).join(''));
  expect(r.events.every((e) => e.instance === 'neighbour' && e.decision === 'allowed')).toBe(true);
}

const flood = (target: string, count: number): string => `
  const net = require('net');
  let ok = 0, refused = 0, other = 0, settled = 0; const socks = [];
  for (let i = 0; i < ${count}; i++) {
    const host = ${JSON.stringify(target)}.replace('N', i);
    const s = net.connect(8877, '127.0.0.1', () => s.write('CONNECT ' + host + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\n\\r\\n'));
    socks.push(s);
    let seen = false;
    s.on('data', (d) => { if (seen) return; seen = true; const t = String(d);
      if (t.startsWith('HTTP/1.1 200')) ok++; else if (/^HTTP\\/1.1 (503|403)/.test(t)) refused++; else other++;
      if (++settled === ${count}) finish(); });
    s.on('error', () => { if (!seen) { seen = true; other++; if (++settled === ${count}) finish(); } });
  }
  function finish() {
    socks.forEach((s) => s.destroy());
    setTimeout(() => require('http').get({ host: '127.0.0.1', port: 8877, path: 'http://api.test:${'${PORT}'}/after' }, (r) => {
      let b = ''; r.on('data', (d) => b += d); r.on('end', () => console.log(JSON.stringify({ ok, refused, other, after: b })));
    }), 200);
  }`;

describeSandboxed('broker robustness', () => {
  beforeAll(async () => {
    hs = await startHostServers((await bundleEgress()).dir);
  });
  afterAll(async () => hs.close());

  it('a flood of 1500 connections is capped per instance; the neighbour and the flooder recover', async () => {
    const script = flood(`api.test:${hs.httpPort}`, 1500).replace('${PORT}', String(hs.httpPort));
    const [a, b] = await Promise.all([
      runWithEgress({
        network: allow,
        resolve: pin,
        command: ['node', '-e', script],
        timeoutMs: 60_000,
      }),
      neighbour(),
    ]);
    expectNeighbourOk(b);
    const out = JSON.parse(a.stdout) as {
      ok: number;
      refused: number;
      other: number;
      after: string;
    };
    expect(out.ok).toBeLessThanOrEqual(128);
    expect(out.ok + out.refused + out.other).toBe(1500);
    expect(out.refused).toBeGreaterThan(0);
    expect(out.after).toBe('hello from /after');
    expect(a.events.filter((e) => e.reason === 'limit').length).toBe(out.refused);
    expect(a.violations).toEqual([]);
  });

  it('a flood of unknown destinations in ask mode holds at most 32 pending grants', async () => {
    const inbox = new GrantInbox();
    let pendingSeen = 0;
    inbox.onPending(() => pendingSeen++);
    const script = flood('hN.flood.test:443', 100).replace('${PORT}', String(hs.httpPort));
    const run = runWithEgress({
      network: { ...allow, mode: 'ask', askTimeoutSeconds: 2 },
      resolve: pin,
      grants: inbox,
      command: ['node', '-e', script],
    });
    const [a, b] = await Promise.all([run, neighbour()]);
    expectNeighbourOk(b);
    expect(pendingSeen).toBe(32);
    const out = JSON.parse(a.stdout) as { refused: number; after: string };
    expect(out.refused).toBe(100);
    expect(a.events.filter((e) => e.reason === 'limit')).toHaveLength(68);
    expect(a.events.filter((e) => e.reason === 'ask-timeout')).toHaveLength(32);
  });

  it.each([
    [
      'random bytes',
      `process.stdout.write('x'); require('fs').writeSync(3, require('crypto').randomBytes(200000))`,
    ],
    [
      'a valid open, then data for a stream it never opened',
      `const fs = require('fs'); const h = (id, t, n) => { const b = Buffer.alloc(9); b.writeUInt32BE(id); b[4] = t; b.writeUInt32BE(n, 5); return b; };
       const host = Buffer.from('api.test'); const p = Buffer.alloc(2); p.writeUInt16BE(${'${PORT}'});
       fs.writeSync(3, Buffer.concat([h(1, 1, 2 + host.length), p, host]));
       setTimeout(() => fs.writeSync(3, Buffer.concat([h(9, 4, 3), Buffer.from('abc')])), 300);`,
    ],
    [
      'a header promising 4 GB',
      `require('fs').writeSync(3, Buffer.from([0,0,0,1,4,255,255,255,255]))`,
    ],
  ])('garbage on the channel (%s) closes only that channel', async (_name, code) => {
    const script = `${code.replace('${PORT}', String(hs.httpPort))}; setTimeout(() => {}, 800);`;
    const [a, b] = await Promise.all([
      runWithEgress({
        network: allow,
        resolve: pin,
        withoutInit: true,
        sandbox: false,
        command: ['node', '-e', script],
      }),
      neighbour(),
    ]);
    expectNeighbourOk(b);
    expect(a.violations).toHaveLength(1);
  });
});
