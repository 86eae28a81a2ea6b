/**
 * What has no route out of the sandbox, tried for real beside a positive control: clients that
 * bypass the proxy, raw IP connections, UDP and DNS, IPv6 loopback, Unix sockets, `none` mode,
 * and the server reaching the channel itself.
 */
import http from 'node:http';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { expect, it } from 'vitest';
import { allowApi, describeSandboxed, pin, runWithEgress, hostServersAll } from './egress-harness';

describeSandboxed('no route out of the sandbox', () => {
  const hs = hostServersAll();

  it('--noproxy and raw-IP connections find no route; positive control from the host', async () => {
    const hostIp = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    const wide = http.createServer((_q, s) => s.end('wide'));
    await new Promise<void>((r) => wide.listen(0, '0.0.0.0', r));
    const widePort = (wide.address() as net.AddressInfo).port;
    try {
      const targets = [`http://api.test:${hs.httpPort}/`, `http://127.0.0.1:${hs.httpPort}/`];
      if (hostIp) {
        const control = await fetch(`http://${hostIp}:${widePort}/`);
        expect(await control.text()).toBe('wide');
        targets.push(`http://${hostIp}:${widePort}/`);
      }
      for (const url of targets) {
        const r = await runWithEgress({
          network: allowApi,
          resolve: pin,
          command: ['curl', '-sS', '--noproxy', '*', '--max-time', '5', url],
        });
        expect(r.code, url).not.toBe(0);
        expect(r.stderr, url).toMatch(
          /Could not resolve|Failed to connect|Couldn't connect|unreachable/i,
        );
        expect(r.events).toEqual([]);
      }
    } finally {
      await new Promise((r) => wide.close(r));
    }
  });

  it('UDP, DNS lookups, IPv6 loopback and Unix sockets fail inside; the sandbox loopback works', async () => {
    const v6 = http.createServer((_q, s) => s.end('v6'));
    await new Promise<void>((r) => v6.listen(0, '::1', r));
    const v6Port = (v6.address() as net.AddressInfo).port;
    const control = await fetch(`http://[::1]:${v6Port}/`);
    expect(await control.text()).toBe('v6');
    const script = `
      const dgram = require('dgram'), dns = require('dns'), net = require('net');
      const out = {};
      const s = dgram.createSocket('udp4');
      s.send('x', 53, '8.8.8.8', (e) => { out.udp = e ? e.code : 'sent'; s.close();
        dns.promises.resolve4('example.com').then(() => 'resolved', (e) => e.code).then((d) => { out.dns = d;
          dns.lookup('api.test', (e) => { out.lookup = e ? e.code : 'resolved';
            const c = net.connect(${v6Port}, '::1');
            c.on('connect', () => { out.v6 = 'connected'; done(); }).on('error', (e) => { out.v6 = e.code; done(); });
      }); }); });
      function done() {
        const l = net.createServer((k) => k.end('ok')).listen(0, '127.0.0.1', () => {
          net.connect(l.address().port, '127.0.0.1').on('data', (d) => { out.ownLoopback = String(d);
            net.createServer().on('error', (e) => { out.unix = e.code; console.log(JSON.stringify(out)); process.exit(0); }).listen('/tmp/u.sock');
          });
        });
      }`;
    try {
      const r = await runWithEgress({
        network: allowApi,
        resolve: pin,
        command: ['node', '-e', script],
      });
      const out = JSON.parse(r.stdout) as Record<string, string>;
      expect(out.udp).toBe('ENETUNREACH');
      expect(out.dns).not.toBe('resolved');
      expect(out.lookup).not.toBe('resolved');
      expect(out.v6).toBe('ECONNREFUSED');
      expect(out.ownLoopback).toBe('ok');
      // The seccomp filter refuses socket(AF_UNIX) and the proxy still works: it never needs one.
      expect(['EPERM', 'EACCES', 'EAFNOSUPPORT']).toContain(out.unix);
    } finally {
      await new Promise((r) => v6.close(r));
    }
  });

  it('the server does not inherit the channel: fd 3 is not open in it', async () => {
    const r = await runWithEgress({
      network: allowApi,
      command: [
        'sh',
        '-c',
        'readlink /proc/$$/fd/3 || echo no-fd-3; ls /proc/$$/fd | tr "\\n" " "',
      ],
    });
    expect(r.stdout).toMatch(/^no-fd-3\n/);
  });

  it('none mode: no init, no proxy variables, nothing listening, no route', async () => {
    const r = await runWithEgress({
      network: { mode: 'none', allow: ['api.test'] },
      command: [
        'sh',
        '-c',
        `env | grep -i proxy; curl -sS --max-time 5 -x http://127.0.0.1:8877 http://api.test:${hs.httpPort}/; echo "rc=$?"`,
      ],
    });
    expect(r.stdout).not.toMatch(/PROXY/i);
    expect(r.stdout).toMatch(/rc=7/);
    expect(r.stderr).toMatch(/Failed to connect|Couldn't connect/);
    expect(r.events).toEqual([]);
  });
});
