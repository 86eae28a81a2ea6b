import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../test/egress/http-peers';
import { startTestProxy } from '../../test/egress/test-proxy';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { testCertificate } from '../../test/helpers/test-certificate';
import { extraCaContext, extraCaFileAside, restoreExtraCa } from './extra-ca';

let dir = '';
tempDirEach('warden-extra-ca-', (d) => (dir = d));
let cert = { key: '', cert: '' };
let server: https.Server;
let port = 0;
beforeAll(async () => {
  const certDir = await mkdtemp(join(tmpdir(), 'warden-extra-ca-cert-'));
  cert = await testCertificate(certDir);
  server = https.createServer(
    { key: readFileSync(cert.key), cert: readFileSync(cert.cert) },
    (_req, res) => res.end('hello over tls'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
  return async () => {
    server.close();
    await rm(certDir, { recursive: true, force: true });
  };
});

const closers: (() => void)[] = [];
afterEach(() => {
  delete process.env.WARDEN_EXTRA_CA_CERTS;
  for (const close of closers.splice(0)) close();
});

/** What TLS to 127.0.0.1 with `secureContext` (Node's default without) says: the answer or why not. */
function fetchOverTls(secureContext?: tls.SecureContext): Promise<string> {
  return new Promise((resolve) => {
    const req = https.get(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        agent: false,
        ...(secureContext ? { secureContext } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', (e) => resolve(`error: ${e.message}`));
  });
}

describe('the certificates moved aside', () => {
  it('belong to the process the shell front named, and to no other', () => {
    expect(extraCaFileAside({ WARDEN_EXTRA_CA_CERTS: `${process.pid}:/etc/ca.pem` })).toBe(
      '/etc/ca.pem',
    );
    for (const aside of [
      `${process.pid + 1}:/etc/ca.pem`,
      `${process.pid}:`,
      ':/x',
      '/etc/ca.pem',
      '',
    ])
      expect(extraCaFileAside({ WARDEN_EXTRA_CA_CERTS: aside })).toBeUndefined();
    expect(extraCaFileAside({})).toBeUndefined();
  });

  it('go back into NODE_EXTRA_CA_CERTS for what the process starts, never over a value there', () => {
    const env: NodeJS.ProcessEnv = { WARDEN_EXTRA_CA_CERTS: `${process.pid}:/etc/ca.pem` };
    restoreExtraCa(env);
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/ca.pem');
    const other: NodeJS.ProcessEnv = {
      WARDEN_EXTRA_CA_CERTS: `${process.pid}:/a`,
      NODE_EXTRA_CA_CERTS: '/b',
    };
    restoreExtraCa(other);
    expect(other.NODE_EXTRA_CA_CERTS).toBe('/b');
    const stale: NodeJS.ProcessEnv = { WARDEN_EXTRA_CA_CERTS: `${process.pid + 1}:/a` };
    restoreExtraCa(stale);
    expect(stale.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });

  it('make a context that trusts the file where Node would have, and nothing without them', async () => {
    expect(await fetchOverTls()).toMatch(/^error: .*self-signed/);
    expect(extraCaContext({})).toBeUndefined();
    const context = extraCaContext({ WARDEN_EXTRA_CA_CERTS: `${process.pid}:${cert.cert}` });
    expect(context).toBeDefined();
    expect(await fetchOverTls(context)).toBe('hello over tls');
    // Added to this context's own copy of the default store, not to the store every TLS shares.
    expect(await fetchOverTls()).toMatch(/^error: .*self-signed/);
    // Made once: the same context at the next use.
    expect(extraCaContext({ WARDEN_EXTRA_CA_CERTS: `${process.pid}:${cert.cert}` })).toBe(context);
  });

  it('a file that cannot be read is warned about, as Node warns, and left out', () => {
    const lines: string[] = [];
    const missing = join(dir, 'missing.pem');
    const context = extraCaContext({ WARDEN_EXTRA_CA_CERTS: `${process.pid}:${missing}` }, (l) =>
      lines.push(l),
    );
    expect(context).toBeUndefined();
    expect(lines).toEqual([
      expect.stringMatching(
        /^warden: Ignoring extra certs from `.*missing\.pem`, load failed: ENOENT/,
      ),
    ]);
  });

  it('the egress proxy opens TLS for an absolute-form https:// request with them', async () => {
    const request = `GET https://api.test:${port}/ HTTP/1.1\r\nHost: api.test:${port}\r\nConnection: close\r\n\r\n`;
    const plain = await startTestProxy();
    closers.push(plain.close);
    expect(await exchange(plain.port, request)).toMatch(/^HTTP\/1\.1 502/);

    process.env.WARDEN_EXTRA_CA_CERTS = `${process.pid}:${cert.cert}`;
    const aside = await startTestProxy();
    closers.push(aside.close);
    const answer = await exchange(aside.port, request);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('hello over tls');
  });
});

describe('warden_certs (bin/warden-door.sh)', () => {
  const doorScript = join(import.meta.dirname, '../../bin/warden-door.sh');
  /** Runs `warden_certs ARGS` in sh; prints the shell's PID and both variables. */
  function certs(args: string[], env: Record<string, string>): string[] {
    const script = `. "$0"; warden_certs "$@"; printf '%s|%s|%s' "$$" "\${NODE_EXTRA_CA_CERTS-unset}" "\${WARDEN_EXTRA_CA_CERTS-unset}"`;
    const out = execFileSync('sh', ['-c', script, doorScript, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      encoding: 'utf8',
    });
    return out.split('|');
  }

  it('moves the variable aside for a plain connect, named by the PID Node will have', () => {
    for (const args of [
      ['connect', 'fs'],
      ['connect', 'fs', '--client', 'claude'],
    ]) {
      const [pid, node, aside] = certs(args, { NODE_EXTRA_CA_CERTS: '/etc/ca.pem' });
      expect([node, aside]).toEqual(['unset', `${pid}:/etc/ca.pem`]);
    }
  });

  it('leaves it for any other command line, with NODE_OPTIONS set, or when it is empty', () => {
    const cases: [string[], Record<string, string>][] = [
      [['servers', 'list'], { NODE_EXTRA_CA_CERTS: '/etc/ca.pem' }],
      [['connect', 'fs', '--max-message-bytes', '9'], { NODE_EXTRA_CA_CERTS: '/etc/ca.pem' }],
      [['connect'], { NODE_EXTRA_CA_CERTS: '/etc/ca.pem' }],
      [['connect', 'fs'], { NODE_EXTRA_CA_CERTS: '/etc/ca.pem', NODE_OPTIONS: '--use-openssl-ca' }],
    ];
    for (const [args, env] of cases)
      expect(certs(args, env).slice(1)).toEqual(['/etc/ca.pem', 'unset']);
    expect(certs(['connect', 'fs'], { NODE_EXTRA_CA_CERTS: '' }).slice(1)).toEqual(['', 'unset']);
    expect(certs(['connect', 'fs'], {}).slice(1)).toEqual(['unset', 'unset']);
  });
});
