/**
 * Escape suite, network: host TCP ports on loopback, host Unix sockets by path (even inside a
 * declared writable root) and in the abstract namespace. The control runs the very same client
 * as a plain process (isolation off) and sees it connect, so a refusal is the sandbox's doing.
 */
import { writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, wardenExec } from './harness';

const status = await sandboxStatus();
const landlock = status.backend === 'landlock';

// Connects to HOST at the egress proxy's port (from HTTP_PROXY): only 127.0.0.1 may answer.
const AT_PROXY_PORT = `
const net = require('node:net');
const port = Number(new URL(process.env.HTTP_PROXY).port);
const s = net.connect({ host: process.argv[2], port });
s.on('connect', () => { console.log('CONNECTED'); process.exit(0); });
s.on('error', (e) => { console.error('ERR ' + e.code); process.exit(3); });
setTimeout(() => { console.error('TIMEOUT'); process.exit(4); }, 3000);
`;

// UDP, and TCP Fast Open (a connection made by sendto, without connect()), to HOST:PORT.
const DATAGRAM = `
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
for name, make in [('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),
                   ('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))]:
    try:
        make().sendto(b'x', (host, port)); print(name, 'SENT')
    except OSError as e: print(name, 'ERR', e.errno)
try:
    s = socket.socket()
    s.sendto(b'GET / HTTP/1.0\\r\\n\\r\\n', socket.MSG_FASTOPEN, (host, port)); print('tfo SENT', s.recv(20))
except OSError as e: print('tfo ERR', e.errno)
`;

// Connects to TARGET (host:port, a socket path, or @abstract) and prints what the server says.
const CLIENT = `
const net = require('node:net');
const target = process.argv[2];
const opts = target.startsWith('@') ? { path: '\\0' + target.slice(1) }
  : target.startsWith('/') ? { path: target }
  : { host: target.split(':')[0], port: Number(target.split(':')[1]) };
const s = net.connect(opts);
s.on('data', (d) => { process.stdout.write(d); process.exit(0); });
s.on('error', (e) => { console.error('ERR ' + e.code); process.exit(3); });
setTimeout(() => { console.error('TIMEOUT'); process.exit(4); }, 3000);
`;

// Listens on 127.0.0.1 inside the sandbox and connects to itself: loopback works in there.
const SELF = `
const net = require('node:net');
const srv = net.createServer((c) => c.end('inner-hello')).listen(0, '127.0.0.1', () => {
  net.connect(srv.address().port, '127.0.0.1').on('data', (d) => { process.stdout.write(d); process.exit(0); });
});
`;

function listen(server: Server, at: string | number): Promise<void> {
  return new Promise((resolve) => {
    if (typeof at === 'number') server.listen(at, '127.0.0.1', resolve);
    else server.listen(at, resolve);
  });
}

describe.skipIf(!status.usable)('escape: network', () => {
  let f: Fixture;
  const servers: Server[] = [];
  let tcp = '';
  let pathSocket = '';
  let rootSocket = '';
  const abstract = `@warden-escape-${process.pid}-${Date.now()}`;
  const client = (flags: string[], target: string) =>
    wardenExec(
      ['--ro', f.ro, ...flags],
      [process.execPath, join(f.ro, 'client.cjs'), target],
      f.hostEnv,
    );

  beforeAll(async () => {
    f = await makeFixture();
    await writeFile(join(f.ro, 'client.cjs'), CLIENT);
    await writeFile(join(f.ro, 'self.cjs'), SELF);
    const make = () => {
      const s = createServer((c) => c.end('host-hello'));
      servers.push(s);
      return s;
    };
    const t = make();
    await listen(t, 0);
    const address = t.address();
    tcp = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    pathSocket = join(f.outside, 'host.sock');
    await listen(make(), pathSocket);
    rootSocket = join(f.rw, 'in-root.sock');
    await listen(make(), rootSocket);
    await listen(make(), `\0${abstract.slice(1)}`);
  });
  afterAll(async () => {
    for (const s of servers) s.close();
    await f.cleanup();
  });

  it('cannot reach a host TCP port on loopback; the same client outside can', async () => {
    const escape = await client([], tcp);
    expect(escape.code).toBe(3);
    // bubblewrap: nothing listens on the sandbox's own loopback; Landlock: the connect is refused.
    expect(escape.stderr).toContain(landlock ? 'ERR EACCES' : 'ERR ECONNREFUSED');
    expect(escape.stdout).not.toContain('host-hello');
    const control = await client(['--isolation', 'off'], tcp);
    expect(control).toMatchObject({ code: 0, stdout: 'host-hello' });
  });

  it.runIf(landlock)(
    'Landlock, network allowed: only 127.0.0.1 at the proxy port connects, not that port elsewhere',
    async () => {
      await writeFile(join(f.ro, 'at-proxy.cjs'), AT_PROXY_PORT);
      const at = (host: string) =>
        wardenExec(
          ['--ro', f.ro, '--net', 'allowlist', '--allow', 'example.com'],
          [process.execPath, join(f.ro, 'at-proxy.cjs'), host],
          f.hostEnv,
        );
      // Landlock's rule names a port only: the launcher pins the address.
      for (const host of ['192.0.2.1', '127.0.0.2', '10.0.0.1']) {
        const escape = await at(host);
        expect(escape, host).toMatchObject({ code: 3, stdout: '' });
        expect(escape.stderr, host).toContain('ERR EACCES');
      }
      expect(await at('127.0.0.1')).toMatchObject({ code: 0, stdout: 'CONNECTED\n' });
      const hostPort = await wardenExec(
        ['--ro', f.ro, '--net', 'allowlist', '--allow', 'example.com'],
        [process.execPath, join(f.ro, 'client.cjs'), tcp],
        f.hostEnv,
      );
      expect(hostPort.stderr).toContain('ERR EACCES');
    },
  );

  it.runIf(landlock)('Landlock: UDP, raw sockets and TCP Fast Open are refused', async () => {
    await writeFile(join(f.ro, 'datagram.py'), DATAGRAM);
    const [host, port] = tcp.split(':') as [string, string];
    for (const flags of [[], ['--net', 'allowlist', '--allow', 'example.com']]) {
      const r = await wardenExec(
        ['--ro', f.ro, ...flags],
        ['/usr/bin/python3', join(f.ro, 'datagram.py'), host, port],
        f.hostEnv,
      );
      expect(r.stdout, flags.join(' ')).toBe('udp ERR 13\nraw ERR 13\ntfo ERR 13\n');
    }
  });

  it.runIf(landlock)(
    'Landlock: not enforced there, no private loopback: listening on TCP is refused instead',
    async () => {
      const inner = await wardenExec(
        ['--ro', f.ro],
        [process.execPath, join(f.ro, 'self.cjs')],
        f.hostEnv,
      );
      expect(inner.code).not.toBe(0);
      expect(inner.stdout).not.toContain('inner-hello');
      expect(inner.stderr).toContain('EACCES');
    },
  );

  it.skipIf(landlock)('has a working loopback of its own', async () => {
    const inner = await wardenExec(
      ['--ro', f.ro],
      [process.execPath, join(f.ro, 'self.cjs')],
      f.hostEnv,
    );
    expect(inner).toMatchObject({ code: 0, stdout: 'inner-hello' });
  });

  it('cannot connect to a host Unix socket by path, even inside a writable root', async () => {
    const outside = await client([], pathSocket);
    expect(outside.code).toBe(3);
    expect(outside.stdout).not.toContain('host-hello');
    const inRoot = await client(['--rw', f.rw], rootSocket);
    expect(inRoot.code).toBe(3);
    expect(inRoot.stdout).not.toContain('host-hello');
    for (const target of [pathSocket, rootSocket]) {
      const control = await client(['--isolation', 'off'], target);
      expect(control).toMatchObject({ code: 0, stdout: 'host-hello' });
    }
  });

  it('cannot connect to a host abstract Unix socket; the same client outside can', async () => {
    const escape = await client([], abstract);
    expect(escape.code).toBe(3);
    expect(escape.stdout).not.toContain('host-hello');
    const control = await client(['--isolation', 'off'], abstract);
    expect(control).toMatchObject({ code: 0, stdout: 'host-hello' });
  });
});
