/**
 * Flood benchmark: a server writes 64 KB notifications in a loop through `warden connect` (one
 * session, its own core, the server sandboxed where this host can), once to a client that never
 * reads and once to one that reads everything. Prints how much Warden's process grew (peak
 * resident memory, VmHWM, against its size once the session was up) and, for the reading client,
 * the rate at which the flood got through.
 *
 *   node bench/run.mjs flood-bench [--seconds N] [--count N]
 *
 * Linux only (reads /proc/PID/status).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultPolicy } from '../app/policy/defaults';
import { createCore } from '../main/core/core';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, count: { type: 'string' } },
});
const SECONDS = Number(values.seconds ?? 10);
const COUNT = Number(values.count ?? 4000);
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

async function flood(home: string, reading: boolean) {
  const child = spawn(process.execPath, [join(root, 'bin/warden.js'), 'connect', 'flood'], {
    env: { ...process.env, WARDEN_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  await request(child, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    },
  } as { id: number });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const before = await memoryOf(child.pid!);
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
  const after = await memoryOf(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { before, after, received, elapsed, answered };
}

/**
 * Audit rows written per 10 s of refused CONNECTs: a figure of the audit log's own benchmark,
 * kept apart from the memory figures above. Returns undefined while it is not measured here.
 */
function refusedConnectAuditRows(): Promise<string | undefined> {
  return Promise.resolve(undefined);
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
    `flood benchmark: ${COUNT} notifications of ${BYTES / 1024} KB (${Math.round((COUNT * BYTES) / MB)} MB offered) through warden connect, at most ${SECONDS} s each; server ${sandboxed ? 'sandboxed' : 'NOT sandboxed (no backend on this host)'}`,
  );
  for (const reading of [false, true]) {
    const r = await flood(home, reading);
    const grew = (r.after.peak - r.before.rss) / MB;
    const rate = reading
      ? `; ${(r.received / MB / r.elapsed).toFixed(1)} MB/s through (${r.answered ? 'all delivered' : 'not finished'} in ${r.elapsed.toFixed(1)} s)`
      : '';
    console.log(
      `${(reading ? 'client reads' : 'client never reads').padEnd(20)} Warden peak ${(r.after.peak / MB).toFixed(1)} MB, grew ${grew.toFixed(1)} MB over its ${(r.before.rss / MB).toFixed(1)} MB once connected${rate} (target: ≤ 64 MB growth per session)`,
    );
  }
  const rows = await refusedConnectAuditRows();
  if (rows !== undefined) console.log(rows);
} finally {
  await rm(home, { recursive: true, force: true });
}
