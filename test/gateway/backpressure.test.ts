/**
 * Back-pressure end to end: a server that floods 64 KB notifications to a client that does not
 * read is held back (its stdout paused) instead of being buffered by Warden, over the local
 * channel (`warden connect`) and over Streamable HTTP (SSE). Memory is measured generously: the
 * growth of this whole process (Warden and the test's client) while 128 MB are offered.
 */
import { type Socket, connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenLocalChannel, localChannelPath } from '../../main/gateway/local-channel';
import { type HttpFrontDoor, startHttpFrontDoor } from '../../main/gateway/http-front-door';
import { answerText, hostileSetup } from '../helpers/hostile-sessions';
import { tempDirEach } from '../helpers/temp-dir';
import { initializeRequest, initializedNotification } from '../helpers/mcp-messages';

const MB = 1024 * 1024;
const FLOOD = { count: 2000, bytes: 64 * 1024 };

let dir = '';
let cleanup: (() => Promise<void>)[] = [];
tempDirEach('warden-backpressure-', (d) => (dir = d));
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Peak growth of this process's resident memory while `ms` pass. */
async function peakGrowth(ms: number): Promise<number> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    peak = Math.max(peak, process.memoryUsage().rss);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return peak - baseline;
}

const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const initialize = initializeRequest('x', { id: 0 });
const floodCall = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'behave', arguments: { behaviour: 'flood', ...FLOOD } },
};

/** Reads newline-delimited messages from `socket` until one satisfies `until`; counts them. */
function readUntil(socket: Socket, until: (m: { id?: unknown }) => boolean): Promise<number> {
  return new Promise((resolve) => {
    let rest = '';
    let count = 0;
    const onData = (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop()!;
      for (const p of parts) {
        count++;
        if (until(JSON.parse(p) as { id?: unknown })) {
          socket.off('data', onData);
          resolve(count);
        }
      }
    };
    socket.on('data', onData);
    socket.resume();
  });
}

describe('back-pressure', () => {
  it('local channel: a flood to a client that does not read grows Warden by far less than 64 MB, and nothing is lost', async () => {
    const s = hostileSetup({ dir });
    cleanup.push(() => s.supervisor.stopAll());
    const home = join(dir, 'home');
    const channel = await listenLocalChannel(
      home,
      async (_server, client, transport) => {
        await s.supervisor.open('hostile', transport, client);
        return undefined;
      },
      16 * MB,
    );
    cleanup.push(() => channel.close());
    const socket = connect(localChannelPath(home));
    cleanup.push(() => Promise.resolve(void socket.destroy()));
    socket.write(line({ server: 'hostile' }));
    await readUntil(socket, () => true); // the hello answer
    socket.write(line(initialize));
    await readUntil(socket, (m) => m.id === 0);
    socket.pause();
    socket.write(line(floodCall));

    const growth = await peakGrowth(2500);
    expect(growth).toBeLessThan(64 * MB);
    // Everything the server wrote arrives once the client reads, in order, then the answer.
    const received = await readUntil(socket, (m) => m.id === 1);
    expect(received).toBe(FLOOD.count + 1);
  });

  it('HTTP: a flood into an SSE response the client does not read is paced the same way', async () => {
    const s = hostileSetup({ dir });
    cleanup.push(() => s.supervisor.stopAll());
    const door: HttpFrontDoor = await startHttpFrontDoor({
      port: 0,
      isToken: (offered) => Promise.resolve(offered === 't'.repeat(40)),
      ownerProof: () => Promise.resolve(''),
      maxBodyBytes: MB,
      hasServer: () => true,
      openSession: async (_name, transport) => {
        const session = await s.supervisor.open('hostile', transport, 'http');
        return () => session.stop();
      },
    });
    cleanup.push(() => door.close());
    const headers = {
      authorization: `Bearer ${'t'.repeat(40)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(door.url('hostile'), {
      method: 'POST',
      headers,
      body: JSON.stringify(initialize),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const sessionHeaders = { ...headers, 'mcp-session-id': session };
    await fetch(door.url('hostile'), {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify(initializedNotification),
    }).then((r) => r.text());
    // Server notifications go to the session's GET stream, which this client opens and never reads.
    const stream = await fetch(door.url('hostile'), {
      headers: { ...sessionHeaders, accept: 'text/event-stream' },
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const flood = fetch(door.url('hostile'), {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify(floodCall),
    }).then((r) => r.text());

    const growth = await peakGrowth(2500);
    expect(growth).toBeLessThan(64 * MB);
    // Once the client reads, every notification arrives, then the answer.
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let events = 0;
    while (events < FLOOD.count) {
      const { value, done } = await reader.read();
      if (done) break;
      events += decoder.decode(value, { stream: true }).split('event: message').length - 1;
    }
    expect(events).toBe(FLOOD.count);
    expect(await flood).toContain('flooded');
    await reader.cancel();
  });

  it('a client that outruns a server that stopped reading breaches the memory budget: that session ends with the reason', async () => {
    const s = hostileSetup({ dir });
    cleanup.push(() => s.supervisor.stopAll());
    const a = await s.open();
    const neighbour = await s.open();
    expect(answerText(await a.call('deaf'))).toBe('deaf now');
    const pending = a.request('tools/call', { name: 'echo', arguments: { message: 'never read' } });
    const data = 'd'.repeat(MB);
    for (let i = 0; i < 80 && a.session.view().state.kind === 'running'; i++) {
      await a.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data } });
    }
    await expect.poll(() => a.session.view().state.kind).toBe('failed');
    expect(a.session.view().state).toMatchObject({
      reason: expect.stringMatching(/memory budget of 64 MB/) as unknown,
    });
    expect(answerText(await pending)).toMatch(/memory budget of 64 MB/);
    expect(s.events.some((e) => e.kind === 'limit.hit' && e.limit === 'sessionMemoryBytes')).toBe(
      true,
    );
    expect(answerText(await neighbour.call('echo', { message: 'fine' }))).toBe('fine');
  });
});
