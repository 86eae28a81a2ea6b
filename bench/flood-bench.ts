/**
 * Flood benchmark: a server writes 64 KB notifications in a loop to one client session (the
 * server sandboxed where this host can), once to a client that never reads and once to one that
 * reads everything, through three doors: `warden connect` on its own, `warden connect` joining a
 * running `warden serve`, and the Streamable HTTP front door (SSE). Prints how much Warden's
 * processes grew (peak resident memory, VmHWM, against their size once the session was up) and,
 * for the reading client, the rate at which the flood got through.
 *
 *   node bench/run.mjs flood-bench [--seconds N] [--count N] [--doors connect,serve,http]
 *
 * Linux only (reads /proc/PID/status).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultPolicy } from '../app/policy/defaults';
import { createCore } from '../main/core/core';
import { initializeRequest, initializedNotification } from '../test/helpers/mcp-messages';
import { benchFlags } from './bench-flags';

const flags = benchFlags(
  'flood-bench',
  "Warden's memory while a server floods one client session with 64 KB notifications.",
  {
    seconds: { type: 'number', fallback: 10, help: 'how long each flood lasts' },
    count: { type: 'number', fallback: 4000, help: 'notifications per flood' },
    doors: { type: 'string', arg: 'LIST', help: 'doors to measure (default connect,serve,http)' },
  },
);
const DOORS = new Set((flags.doors ?? 'connect,serve,http').split(','));
const SECONDS = flags.seconds;
const COUNT = flags.count;
const BYTES = 64 * 1024;
const MB = 1024 * 1024;
// Run from the repository root (bench/run.mjs bundles this file elsewhere).
const root = resolve(process.cwd());
const fixtures = join(root, 'test/fixtures');

async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

/** Sends one line and resolves with the first answer whose id matches. */
function request(child: ChildProcessWithoutNullStreams, message: { id: number }): Promise<void> {
  return new Promise((resolve) => {
    let rest = '';
    const onData = (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      if (
        lines.some((l) => l.startsWith('{') && (JSON.parse(l) as { id?: number }).id === message.id)
      ) {
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
}

interface Run {
  grew: number;
  peak: number;
  before: number;
  received: number;
  elapsed: number;
  answered: boolean;
}

/** Growth of the peak memory of `pids` since `before`, summed. */
async function growth(pids: number[], before: { rss: number }[]) {
  const after = await Promise.all(pids.map(memoryOf));
  return {
    grew: after.reduce((sum, m, i) => sum + m.peak - before[i]!.rss, 0),
    peak: after.reduce((sum, m) => sum + m.peak, 0),
    before: before.reduce((sum, m) => sum + m.rss, 0),
  };
}

/** Through `warden connect` (joining the core of `servePid` when there is one). */
async function floodStdio(home: string, reading: boolean, servePid?: number): Promise<Run> {
  const child = spawn(process.execPath, [join(root, 'bin/warden.js'), 'connect', 'flood'], {
    env: { ...process.env, WARDEN_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  await request(child, initializeRequest('bench'));
  child.stdin.write(`${JSON.stringify(initializedNotification)}\n`);
  const pids = servePid ? [child.pid!, servePid] : [child.pid!];
  const before = await Promise.all(pids.map(memoryOf));
  let received = 0;
  let answered = false;
  if (reading) {
    child.stdout.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (chunk.includes('"flooded"')) answered = true;
    });
  } else child.stdout.pause();
  const started = performance.now();
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'behave', arguments: { behaviour: 'flood', count: COUNT, bytes: BYTES } } })}\n`,
  );
  const deadline = started + SECONDS * 1000;
  while (performance.now() < deadline && !answered) await new Promise((r) => setTimeout(r, 50));
  const elapsed = (performance.now() - started) / 1000;
  const measured = await growth(pids, before);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { ...measured, received, elapsed, answered };
}

/** A `warden serve` with its gateway on a free port; resolves once the gateway listens. */
async function startServe(home: string) {
  const child = spawn(
    process.execPath,
    [join(root, 'bin/warden.js'), 'serve', '--port', '0', '--gateway-port', '0', '--no-open'],
    { env: { ...process.env, WARDEN_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.resume();
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /MCP gateway at (http:\/\/\S+)\/NAME/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`warden serve exited: ${out}`)));
  });
  const token = (await readFile(join(home, 'gateway-token'), 'utf8')).trim();
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  return { pid: child.pid!, url: `${url}/flood`, token, stop };
}

/** Through the Streamable HTTP front door: notifications arrive on the session's GET stream. */
async function floodHttp(
  serve: { pid: number; url: string; token: string },
  reading: boolean,
): Promise<Run> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${serve.token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const post = (body: unknown) =>
    fetch(serve.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const init = await post(initializeRequest('bench'));
  headers['mcp-session-id'] = init.headers.get('mcp-session-id')!;
  await init.text();
  await (await post(initializedNotification)).text();
  const stream = await fetch(serve.url, { headers: { ...headers, accept: 'text/event-stream' } });
  const reader = stream.body!.getReader();
  const before = [await memoryOf(serve.pid)];
  let received = 0;
  if (reading) {
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += value.length;
      }
    })().catch(() => undefined);
  }
  const started = performance.now();
  let answered = false;
  void post({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'behave', arguments: { behaviour: 'flood', count: COUNT, bytes: BYTES } },
  })
    .then((r) => r.text())
    .then(() => (answered = true))
    .catch(() => undefined);
  const deadline = started + SECONDS * 1000;
  while (performance.now() < deadline && !answered) await new Promise((r) => setTimeout(r, 50));
  const elapsed = (performance.now() - started) / 1000;
  const measured = await growth([serve.pid], before);
  await reader.cancel().catch(() => undefined);
  return { ...measured, received, elapsed, answered };
}

function report(label: string, reading: boolean, r: Run): void {
  const rate = reading
    ? `; ${(r.received / MB / r.elapsed).toFixed(1)} MB/s through (${r.answered ? 'all delivered' : 'not finished'} in ${r.elapsed.toFixed(1)} s)`
    : '';
  console.log(
    `${label.padEnd(26)} ${(reading ? 'client reads' : 'client never reads').padEnd(19)} Warden peak ${(r.peak / MB).toFixed(1)} MB, grew ${(r.grew / MB).toFixed(1)} MB over its ${(r.before / MB).toFixed(1)} MB once connected${rate}`,
  );
}

const home = await mkdtemp(join(tmpdir(), 'warden-flood-bench-'));
try {
  const core = await createCore({ wardenHome: home });
  const sandboxed = core.hostReport().backend.available;
  await core.config.addServer({
    name: 'flood',
    launch: { command: process.execPath, args: [join(fixtures, 'hostile-jsonrpc-server.mjs')] },
    policy: {
      ...defaultPolicy(),
      isolation: sandboxed ? 'sandbox' : 'off',
      filesystem: { roots: [{ path: fixtures, access: 'read' }] },
    },
    acknowledged: true,
  });
  await core.close();
  console.log(
    `flood benchmark: ${COUNT} notifications of ${BYTES / 1024} KB (${Math.round((COUNT * BYTES) / MB)} MB offered) per run, at most ${SECONDS} s each; server ${sandboxed ? 'sandboxed' : 'NOT sandboxed (no backend on this host)'}`,
  );
  console.log('target: Warden grows by at most 64 MB per session');
  for (const reading of DOORS.has('connect') ? [false, true] : [])
    report('warden connect', reading, await floodStdio(home, reading));
  for (const reading of DOORS.has('serve') ? [false, true] : []) {
    const serve = await startServe(home);
    try {
      report('warden serve + connect', reading, await floodStdio(home, reading, serve.pid));
    } finally {
      await serve.stop();
    }
  }
  for (const reading of DOORS.has('http') ? [false, true] : []) {
    const serve = await startServe(home);
    try {
      report('warden serve, HTTP (SSE)', reading, await floodHttp(serve, reading));
    } finally {
      await serve.stop();
    }
  }
  console.log('Audit rows per 10 s of refused CONNECTs: node bench/run.mjs audit-flood-bench');
} finally {
  await rm(home, { recursive: true, force: true });
}
