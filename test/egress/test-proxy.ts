/**
 * The egress proxy on a free loopback port for tests, with a dial that stands in for the broker:
 * it records each host asked for, refuses what `allow` does not accept, and connects the rest to
 * 127.0.0.1 (the policy itself is the broker's, tested on its own).
 */
import net from 'node:net';
import { type ProxyOptions, createProxyServer } from '../../main/egress/proxy-server';
import type { Dial } from '../../main/egress/refusal';
import { ReadBufferBudget, connectUpstream } from '../../main/egress/upstream';

export interface TestProxy {
  port: number;
  /** Hosts the dial was asked for, in order. */
  dialed: string[];
  close: () => void;
}

/** Starts the proxy (with `options`); `close` stops listening. */
export async function startTestProxy(
  allow: (host: string) => boolean = () => true,
  options: ProxyOptions = {},
): Promise<TestProxy> {
  const budget = new ReadBufferBudget();
  const dialed: string[] = [];
  const dial: Dial = async (host, port, client, options) => {
    dialed.push(host);
    if (!allow(host))
      return { ok: false, refusal: { reason: 'not-allowed', message: `${host} is not allowed` } };
    const socket = await connectUpstream(
      '127.0.0.1',
      port,
      2000,
      options?.relay ? budget : undefined,
    );
    client.once('close', () => socket.destroy());
    return { ok: true, socket };
  };
  const server = createProxyServer(dial, options);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    dialed,
    close: () => server.close(),
  };
}
