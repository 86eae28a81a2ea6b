/**
 * Real clients (curl, Node fetch/https, Python urllib) inside a real bwrap sandbox with an empty
 * network namespace, against HTTP and HTTPS servers on the host. Every refusal is attempted for
 * real and sits beside a positive control that succeeds.
 */
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { expect, it } from 'vitest';
import {
  allowApi,
  blobChunk,
  describeSandboxed,
  pin,
  runWithEgress,
  hostServersAll,
} from './egress-harness';

describeSandboxed('egress from a real sandbox', () => {
  const hs = hostServersAll();

  it('curl reaches an allowed name over HTTPS (CONNECT) and HTTP (absolute-form)', async () => {
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: [
        'curl',
        '-fsS',
        '--cacert',
        hs.caFile,
        `https://api.test:${hs.httpsPort}/tls`,
        `http://api.test:${hs.httpPort}/plain`,
      ],
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('hello from /tlshello from /plain');
    expect(r.events.map((e) => [e.decision, e.rule])).toEqual([
      ['allowed', 'allow api.test; allowAddresses 127.0.0.1'],
      ['allowed', 'allow api.test; allowAddresses 127.0.0.1'],
    ]);
    const tls = r.events.find((e) => e.port === hs.httpsPort)!;
    expect(tls).toMatchObject({
      instance: 'inst-1',
      server: 'test-server',
      host: 'api.test',
      address: '127.0.0.1',
    });
    expect(tls.bytesUp).toBeGreaterThan(100);
    expect(tls.bytesDown).toBeGreaterThan(100);
  });

  it('the Node script init (built without a C compiler, and on macOS) brokers the same', async () => {
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      init: 'script',
      command: [
        'sh',
        '-c',
        `curl -fsS --cacert ${hs.caFile} https://api.test:${hs.httpsPort}/tls; ` +
          `curl -sS -o /dev/null -w ' %{http_connect}' --cacert ${hs.caFile} https://other.test:${hs.httpsPort}/`,
      ],
    });
    expect(r.stdout).toBe('hello from /tls 403');
    expect(r.events.map((e) => [e.host, e.decision])).toEqual([
      ['api.test', 'allowed'],
      ['other.test', 'refused'],
    ]);
  });

  it('64 MB each way through the tunnel arrive byte for byte', async () => {
    const size = 64 * 1024 * 1024;
    const expected = createHash('sha256');
    for (let i = 0; i < size / 65536; i++) expected.update(blobChunk(i));
    const script = [
      'head -c 67108864 /dev/urandom > /tmp/up',
      'sha256sum /tmp/up | cut -d" " -f1',
      `curl -fsS --cacert ${hs.caFile} --data-binary @/tmp/up https://api.test:${hs.httpsPort}/up; echo`,
      `curl -fsS --cacert ${hs.caFile} https://api.test:${hs.httpsPort}/blob/${size} | sha256sum | cut -d" " -f1`,
    ].join('; ');
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: ['sh', '-c', script],
      timeoutMs: 60_000,
    });
    const [sent, received, downloaded] = r.stdout.trim().split('\n');
    expect(received).toBe(sent);
    expect(downloaded).toBe(expected.digest('hex'));
    expect(r.events[0]!.bytesUp).toBeGreaterThan(size);
    expect(r.events[1]!.bytesDown).toBeGreaterThan(size);
  });

  it('a slow reader still gets every byte in order (the relay waits instead of reusing a buffer)', async () => {
    const size = 16 * 1024 * 1024;
    const expected = createHash('sha256');
    for (let i = 0; i < size / 65536; i++) expected.update(blobChunk(i));
    // Through a CONNECT tunnel (the relay), reading in bursts with pauses, so that the relay's
    // writes queue up and its reads must wait for a free buffer.
    const script = `
      const s = require('net').connect(8877, '127.0.0.1', () =>
        s.write('CONNECT api.test:${hs.httpPort} HTTP/1.1\\r\\n\\r\\n'));
      const h = require('crypto').createHash('sha256');
      let heads = 0, head = Buffer.alloc(0), n = 0;
      s.on('data', (d) => {
        while (heads < 2) {
          head = Buffer.concat([head, d]); const i = head.indexOf('\\r\\n\\r\\n');
          if (i < 0) return;
          d = head.subarray(i + 4); head = Buffer.alloc(0);
          if (++heads === 1) s.write('GET /blob/${size} HTTP/1.0\\r\\nHost: api.test\\r\\n\\r\\n');
          else break;
        }
        h.update(d); n += d.length;
        if (n % 7 === 0 || d.length > 60000) { s.pause(); setTimeout(() => s.resume(), 3); }
      });
      s.on('end', () => console.log(n, h.digest('hex')));`;
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: ['node', '-e', script],
      timeoutMs: 60_000,
    });
    expect(r.stdout.trim()).toBe(`${size} ${expected.digest('hex')}`);
  });

  it('a name that is not allowed gets HTTP 403 with a reason header', async () => {
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: ['curl', '-sS', '-v', '--cacert', hs.caFile, `https://other.test:${hs.httpsPort}/`],
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/< HTTP\/1\.1 403 Forbidden/);
    expect(r.stderr).toMatch(
      /X-Warden-Reason: warden: other\.test:\d+ is not in this server's network\.allow/,
    );
    expect(r.events).toMatchObject([
      { host: 'other.test', decision: 'refused', reason: 'not-allowed' },
    ]);
  });

  it('SOCKS5 with host names: allowed name passes, others get "not allowed by ruleset"', async () => {
    const socks = ['-x', 'socks5h://127.0.0.1:8877', '--cacert', hs.caFile];
    const ok = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: ['curl', '-fsS', ...socks, `https://api.test:${hs.httpsPort}/socks`],
    });
    expect(ok.stdout).toBe('hello from /socks');
    const refused = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: ['curl', '-sS', ...socks, `https://other.test:${hs.httpsPort}/`],
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/SOCKS5.*(\(2\)|not allowed)/i);
    expect(refused.events).toMatchObject([{ host: 'other.test', decision: 'refused' }]);
  });

  it('SOCKS5 with IPv4 and IPv6 literals (address types 1 and 4) is decided like any destination', async () => {
    const v6 = http.createServer((_q, res) => res.end('v6 over socks'));
    await new Promise<void>((r) => v6.listen(0, '::1', r));
    const v6Port = (v6.address() as net.AddressInfo).port;
    try {
      const r = await runWithEgress({
        network: {
          mode: 'allowlist',
          allow: ['127.0.0.1', '[::1]'],
          allowAddresses: ['127.0.0.1', '::1'],
        },
        command: [
          'sh',
          '-c',
          `curl -fsS -x socks5://127.0.0.1:8877 http://127.0.0.1:${hs.httpPort}/v4; echo; ` +
            `curl -fsS -g -x socks5://127.0.0.1:8877 'http://[::1]:${v6Port}/'`,
        ],
      });
      expect(r.stdout).toBe('hello from /v4\nv6 over socks');
      expect(r.events.map((e) => [e.host, e.address, e.rule?.split(';')[0]])).toEqual([
        ['127.0.0.1', '127.0.0.1', 'allow 127.0.0.1'],
        ['::1', '::1', 'allow [::1]'],
      ]);
    } finally {
      await new Promise((r) => v6.close(r));
    }
  });

  it('a name resolving to loopback is refused unless the address is allowed explicitly', async () => {
    const url = `http://loop.test:${hs.httpPort}/`;
    const refused = await runWithEgress({
      network: { mode: 'allowlist', allow: ['loop.test'] },
      resolve: pin,
      command: ['curl', '-sS', '-f', '-v', url],
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/403/);
    expect(refused.stderr).toMatch(
      /loop\.test resolves to 127\.0\.0\.1, which is a loopback address/,
    );
    expect(refused.events).toMatchObject([
      {
        decision: 'refused',
        reason: 'address-blocked',
        address: '127.0.0.1',
        rule: 'allow loop.test',
      },
    ]);
    const literal = await runWithEgress({
      network: { mode: 'allowlist', allow: ['127.0.0.1', '[::1]'] },
      command: [
        'curl',
        '-sS',
        '-f',
        `http://127.0.0.1:${hs.httpPort}/`,
        `http://[::1]:${hs.httpPort}/`,
      ],
    });
    expect(literal.code).not.toBe(0);
    expect(literal.events.map((e) => [e.host, e.reason])).toEqual([
      ['127.0.0.1', 'address-blocked'],
      ['::1', 'address-blocked'],
    ]);
    const allowed = await runWithEgress({
      network: { mode: 'allowlist', allow: ['loop.test'], allowAddresses: ['127.0.0.0/8'] },
      resolve: pin,
      command: ['curl', '-sS', '-f', url],
    });
    expect(allowed.stdout).toBe('hello from /');
  });

  it('names are resolved on the host: a failure is a 502, blocked answers are skipped', async () => {
    const lookup = (name: string): Promise<string[]> =>
      name === 'mixed.test'
        ? Promise.resolve(['10.1.2.3', '169.254.169.254', '127.0.0.1'])
        : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    const r = await runWithEgress({
      network: {
        mode: 'allowlist',
        allow: ['mixed.test', 'gone.test'],
        allowAddresses: ['127.0.0.1'],
      },
      lookup,
      command: [
        'curl',
        '-s',
        '-v',
        `http://mixed.test:${hs.httpPort}/m`,
        `http://gone.test:${hs.httpPort}/`,
      ],
    });
    expect(r.stdout).toMatch(/^hello from \/m/);
    expect(r.stderr).toMatch(
      /< HTTP\/1\.1 502 Bad Gateway\r?\n< X-Warden-Reason: warden: cannot resolve gone\.test on the host \(ENOTFOUND\)/,
    );
    expect(r.events.map((e) => [e.host, e.decision, e.address ?? e.reason])).toEqual([
      ['mixed.test', 'allowed', '127.0.0.1'],
      ['gone.test', 'refused', 'resolve-failed'],
    ]);
  });

  it('Node 20 built-in fetch, http.get and https.get go through the preload; refusals are readable', async () => {
    const script = `
      const https = require('https');
      (async () => {
        const a = await (await fetch('https://api.test:${hs.httpsPort}/fetch')).text();
        const b = await new Promise((res, rej) => https.get('https://api.test:${hs.httpsPort}/https', (r) => {
          let t = ''; r.on('data', (d) => t += d); r.on('end', () => res(t)); }).on('error', rej));
        const c = await fetch('http://api.test:${hs.httpPort}/plainfetch').then((r) => r.text());
        const e = await new Promise((res, rej) => require('http').get('http://api.test:${hs.httpPort}/plainhttp', (r) => {
          let t = ''; r.on('data', (d) => t += d); r.on('end', () => res(t)); }).on('error', rej));
        const d = await fetch('https://other.test:${hs.httpsPort}/').then(() => 'reached', (e) => String(e.cause && e.cause.message));
        // A client that uses the proxy itself (as axios does): absolute-form, even for https,
        // where Warden opens the TLS connection and checks the certificate with its own trust.
        const f = await new Promise((res, rej) => require('http').get({ host: '127.0.0.1', port: 8877, path: 'https://api.test:${hs.httpsPort}/absolute' }, (r) => {
          let t = ''; r.on('data', (d) => t += d); r.on('end', () => res(t)); }).on('error', rej));
        console.log(JSON.stringify([a, b, c, d, e, f]));
      })();`;
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      env: { NODE_EXTRA_CA_CERTS: hs.caFile },
      extraCa: [await readFile(hs.caFile, 'utf8')],
      command: ['node', '-e', script],
    });
    expect(r.stderr).toBe('');
    const [a, b, c, d, e, f] = JSON.parse(r.stdout) as string[];
    expect(f).toBe('hello from /absolute');
    expect([a, b, c, e]).toEqual([
      'hello from /fetch',
      'hello from /https',
      'hello from /plainfetch',
      'hello from /plainhttp',
    ]);
    expect(d).toMatch(
      /egress refused other\.test:\d+: warden: other\.test:\d+ is not in this server's network\.allow/,
    );
  });

  it('Python urllib honours the proxy variables', async () => {
    const py = `import ssl, urllib.request
ctx = ssl.create_default_context(cafile='${hs.caFile}')
print(urllib.request.urlopen('https://api.test:${hs.httpsPort}/py', context=ctx).read().decode())
try:
    urllib.request.urlopen('https://other.test:${hs.httpsPort}/', context=ctx)
except Exception as e:
    print('refused:', e)`;
    const r = await runWithEgress({
      network: allowApi,
      resolve: pin,
      command: ['/usr/bin/python3', '-c', py],
    });
    expect(r.stdout).toMatch(/^hello from \/py\nrefused: .*403 Forbidden/);
  });
});
