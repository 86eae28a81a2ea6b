/**
 * Listens on 127.0.0.1 and on [::1] at one port. Browsers resolve `*.localhost` names to both
 * and try ::1 first (Chromium does): a program of another user holding [::1]:PORT would receive
 * the per-run name's requests, sign-in codes included. So the web server holds both, or does not
 * start on that port; a machine without IPv6 loopback has no ::1 for anyone to hold.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const LOOPBACK = '127.0.0.1';
export const LOOPBACK_V6 = '::1';
/** Ports the system chooses tried at most, when another program holds the first ones on ::1. */
const TRIES = 8;

/**
 * Binds `v4` on 127.0.0.1:`port` and `v6` on [::1] at the same port (`port` 0: a free one, chosen
 * again while ::1 is taken). Rejects with EADDRINUSE when a fixed port is held on either address.
 */
export async function listenLoopback(v4: Server, v6: Server, port: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    await listen(v4, LOOPBACK, port);
    const bound = (v4.address() as AddressInfo).port;
    try {
      await listen(v6, LOOPBACK_V6, bound);
      return bound;
    } catch (error) {
      const code = (error as { code?: string }).code;
      // No IPv6 loopback here: browsers cannot try ::1 either.
      if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return bound;
      await new Promise((done) => v4.close(done));
      if (port !== 0 || code !== 'EADDRINUSE' || attempt >= TRIES) throw error;
    }
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', fail);
      done();
    });
  });
}
