/**
 * SOCKS5 (RFC 1928) CONNECT with no authentication. Host names are passed to the broker as they
 * are (`socks5h` semantics): nothing is resolved inside the sandbox. BIND and UDP ASSOCIATE are
 * refused with "command not supported". With `authorize` (a proxy on the host's own loopback),
 * the client must log in with username/password (RFC 1929) first.
 */
import type { Socket } from 'node:net';
import type { ProxyAuthorize } from './proxy-server';
import { type Dial, socksRefusalCode } from './refusal';
import { relay } from './upstream';

function reply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

function formatV6(b: Buffer): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(b.readUInt16BE(i).toString(16));
  return words.join(':');
}

/** Parses the CONNECT request; `undefined` when more bytes are needed, a number on error. */
function parseRequest(
  buf: Buffer,
): { host: string; port: number; used: number } | number | undefined {
  if (buf.length < 5) return undefined;
  if (buf[0] !== 5) return 0x01;
  if (buf[1] !== 1) return 0x07;
  const atyp = buf[3];
  let host: string;
  let at: number;
  if (atyp === 1) {
    at = 8;
    if (buf.length < at + 2) return undefined;
    host = [...buf.subarray(4, 8)].join('.');
  } else if (atyp === 3) {
    at = 5 + buf[4]!;
    if (buf.length < at + 2) return undefined;
    host = buf.subarray(5, at).toString('utf8');
  } else if (atyp === 4) {
    at = 20;
    if (buf.length < at + 2) return undefined;
    host = formatV6(buf.subarray(4, 20));
  } else {
    return 0x08;
  }
  return { host, port: buf.readUInt16BE(at), used: at + 2 };
}

/** RFC 1929 `[1][ulen][user][plen][password]`: undefined while incomplete. */
function parseLogin(buf: Buffer): { user: string; password: string; used: number } | undefined {
  if (buf.length < 2) return undefined;
  const ulen = buf[1]!;
  if (buf.length < 3 + ulen) return undefined;
  const plen = buf[2 + ulen]!;
  if (buf.length < 3 + ulen + plen) return undefined;
  return {
    user: buf.subarray(2, 2 + ulen).toString('utf8'),
    password: buf.subarray(3 + ulen, 3 + ulen + plen).toString('utf8'),
    used: 3 + ulen + plen,
  };
}

/** Serves one SOCKS5 client whose first bytes are already in `first`. */
export function serveSocks5(
  sock: Socket,
  first: Buffer,
  dial: Dial,
  authorize?: ProxyAuthorize,
): void {
  let buf = first;
  let stage: 'greeting' | 'login' | 'request' | 'done' = 'greeting';
  const onData = (chunk: Buffer): void => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    step();
  };
  const fail = (code: number): void => {
    stage = 'done';
    sock.off('data', onData);
    sock.end(reply(code));
  };
  const step = (): void => {
    if (buf.length > 1024) return fail(0x01);
    if (stage === 'greeting') {
      if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
      const methods = buf.subarray(2, 2 + buf[1]!);
      buf = buf.subarray(2 + buf[1]!);
      const method = authorize ? 2 : 0;
      if (!methods.includes(method)) {
        stage = 'done';
        sock.end(Buffer.from([5, 0xff]));
        return;
      }
      sock.write(Buffer.from([5, method]));
      stage = authorize ? 'login' : 'request';
    }
    if (stage === 'login') {
      const login = buf[0] === 1 || buf.length === 0 ? parseLogin(buf) : false;
      if (login === undefined) return;
      if (login) buf = buf.subarray(login.used);
      if (!login || !authorize?.(login.user, login.password)) {
        stage = 'done';
        sock.off('data', onData);
        sock.end(Buffer.from([1, 1]));
        return;
      }
      sock.write(Buffer.from([1, 0]));
      stage = 'request';
    }
    if (stage !== 'request') return;
    const req = parseRequest(buf);
    if (req === undefined) return;
    if (typeof req === 'number') return fail(req);
    stage = 'done';
    sock.off('data', onData);
    sock.pause();
    const rest = buf.subarray(req.used);
    void dial(req.host, req.port, sock, { relay: true }).then((dialed) => {
      if (!dialed.ok) {
        sock.end(reply(socksRefusalCode(dialed.refusal)));
        // Read on (and drop) what still comes, so that the client's close is seen.
        return void sock.resume();
      }
      sock.write(reply(0));
      relay(sock, dialed.socket, rest);
    });
  };
  const gone = (): void => {
    if (stage !== 'done') sock.destroy();
  };
  sock.once('end', gone);
  sock.on('data', onData);
  step();
}
