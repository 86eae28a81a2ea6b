/**
 * The proxy's side of each connection a sandboxed server opens sends every write as it is made
 * (TCP_NODELAY). With Nagle's algorithm on, the second part of a flight the server answers whole
 * (a TLS server's handshake, relayed as it arrives) waited for the server's delayed
 * acknowledgement of the first: about 40 ms a handshake (`bench/egress-bench.ts`, small flights).
 * Node offers no getsockopt, so the test watches the option being set on the socket's handle.
 */
import net from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { startTestProxy } from './test-proxy';

interface TcpHandle {
  setNoDelay: (this: TcpHandle, on: boolean) => number;
  getsockname: (this: TcpHandle, out: { port?: number }) => number;
}

afterEach(() => vi.restoreAllMocks());

it('a connection the proxy accepts has Nagle’s algorithm off', async () => {
  const target = net.createServer((s) => s.on('error', () => undefined).end('hello\n'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const targetPort = (target.address() as net.AddressInfo).port;
  const proxy = await startTestProxy();
  // Every TCP handle shares one prototype: watch which handles are told to send at once.
  const probe = net.connect(targetPort, '127.0.0.1').on('error', () => undefined);
  await new Promise((r) => probe.once('connect', r));
  const proto = Object.getPrototypeOf(
    (probe as unknown as { _handle: TcpHandle })._handle,
  ) as TcpHandle;
  probe.destroy();
  const noDelay = new Set<number>();
  const original = proto.setNoDelay;
  vi.spyOn(proto, 'setNoDelay').mockImplementation(function (this: TcpHandle, on: boolean) {
    const name: { port?: number } = {};
    this.getsockname(name);
    if (on && name.port !== undefined) noDelay.add(name.port);
    return original.call(this, on);
  });
  try {
    const client = net.connect(proxy.port, '127.0.0.1').on('error', () => undefined);
    client.write(
      `CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nHost: 127.0.0.1:${targetPort}\r\n\r\n`,
    );
    let got = '';
    client.on('data', (d: Buffer) => (got += d.toString()));
    await vi.waitFor(() => expect(got).toContain('hello'), { timeout: 3000 });
    client.destroy();
    // The proxy's end of the client's connection (its local port is the proxy's).
    expect(noDelay.has(proxy.port)).toBe(true);
  } finally {
    proxy.close();
    target.close();
  }
});
