/**
 * Peers for tests of the proxy's HTTP side: an upstream that records every byte it is sent, and
 * a client that sends raw bytes and collects the whole answer until the proxy closes.
 */
import net from 'node:net';

export interface RecordingUpstream {
  port: number;
  /** Everything the upstream was sent, on all its connections, as latin1 text. */
  received: () => string;
  close: () => void;
}

/** A TCP server that records what it was sent and answers `answer` to the first request. */
export async function recordingUpstream(
  answer: (request: string) => string | Buffer,
): Promise<RecordingUpstream> {
  let received = '';
  const server = net.createServer((s) => {
    let answered = false;
    s.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (!answered && received.includes('\r\n\r\n')) {
        const out = answer(received);
        if (out.length === 0) return;
        answered = true;
        s.end(out);
      }
    });
    s.on('error', () => undefined);
  });
  return { ...(await listening(server)), received: () => received };
}

/** `server` listening on a free loopback port: its port and how to close it. */
async function listening(server: net.Server): Promise<{ port: number; close: () => void }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** A TCP server that answers each request head it reads with `answer` and never closes first. */
export async function answeringUpstream(
  answer: string,
): Promise<RecordingUpstream & { requests: () => number }> {
  let requests = 0;
  let received = '';
  const server = net.createServer((s) => {
    let text = '';
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      received += d.toString('latin1');
      for (let end = text.indexOf('\r\n\r\n'); end >= 0; end = text.indexOf('\r\n\r\n')) {
        text = text.slice(end + 4);
        requests++;
        s.write(answer);
      }
    });
    s.on('error', () => undefined);
  });
  return { ...(await listening(server)), requests: () => requests, received: () => received };
}

/** Sends `request` to the proxy and returns everything it answers until it closes. */
export function exchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(request));
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}
