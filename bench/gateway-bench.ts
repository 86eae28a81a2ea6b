/**
 * Gateway benchmark: small `tools/call` round trips to a real MCP server, direct over stdio vs
 * through `warden connect` with auditing on, side by side in one run. Prints p50, p99 and calls
 * per second for both, and the latency the gateway adds.
 *
 *   node bench/run.mjs gateway-bench [--calls N] [--concurrency N] [--cpu-prof-dir DIR]
 *
 * `--cpu-prof-dir` writes a CPU profile of the `warden connect` process (and its core) there.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultPolicy } from '../app/policy/defaults';
import { createCore } from '../main/core/core';

const { values } = parseArgs({
  options: {
    calls: { type: 'string' },
    concurrency: { type: 'string' },
    'cpu-prof-dir': { type: 'string' },
  },
});
const CALLS = Number(values.calls ?? 3000);
const CONCURRENCY = Number(values.concurrency ?? 16);
// Run from the repository root (bench/run.mjs bundles this file elsewhere).
const root = resolve(process.cwd());
const profileDir = values['cpu-prof-dir'] ? resolve(values['cpu-prof-dir']) : undefined;
const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** CPU time (user + system, ms) a process has used so far; undefined off Linux. */
async function cpuMs(pid: number | null): Promise<number | undefined> {
  if (!pid) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, in clock ticks (100 per second here).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function measure(label: string, transport: StdioClientTransport) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const call = () => client.callTool({ name: 'echo', arguments: { message: 'ping' } });
  for (let i = 0; i < 200; i++) await call(); // warm-up
  const cpuBefore = await cpuMs(transport.pid);
  const latencies: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CALLS) await call();
    }),
  );
  const perSecond = CALLS / ((performance.now() - started) / 1000);
  const cpuAfter = await cpuMs(transport.pid);
  await client.close();
  const r = { label, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), perSecond };
  // CPU per call of the process the client spawned (the server itself, or `warden connect`,
  // which relays, gates and audits): steadier than wall-clock figures on a busy machine.
  const cpu =
    cpuBefore !== undefined && cpuAfter !== undefined
      ? `   ${(((cpuAfter - cpuBefore) * 1000) / (2 * CALLS)).toFixed(0)} µs CPU/call`
      : '';
  console.log(
    `${label.padEnd(34)} p50 ${r.p50.toFixed(3)} ms   p99 ${r.p99.toFixed(3)} ms   ${Math.round(r.perSecond)} calls/s (${CONCURRENCY} in flight)${cpu}`,
  );
  return r;
}

const home = await mkdtemp(join(tmpdir(), 'warden-bench-'));
try {
  const core = await createCore({ wardenHome: home });
  const sandboxed = core.hostReport().backend.available;
  await core.config.addServer({
    name: 'everything',
    launch: { command: process.execPath, args: [everything, 'stdio'] },
    policy: {
      ...defaultPolicy(),
      isolation: sandboxed ? 'sandbox' : 'off',
      filesystem: { roots: [{ path: join(root, 'node_modules'), access: 'read' }] },
    },
    acknowledged: true,
  });
  await core.close();
  console.log(
    `gateway benchmark: ${CALLS} sequential echo calls, then ${CALLS} with ${CONCURRENCY} in flight; server ${sandboxed ? 'sandboxed' : 'NOT sandboxed (no backend on this host)'}`,
  );
  const direct = await measure(
    'direct stdio',
    new StdioClientTransport({
      command: process.execPath,
      args: [everything, 'stdio'],
      stderr: 'ignore',
    }),
  );
  const gateway = await measure(
    'warden connect (audit on)',
    new StdioClientTransport({
      command: process.execPath,
      args: [...profileArgs, join(root, 'bin/warden.js'), 'connect', 'everything'],
      env: { ...process.env, WARDEN_HOME: home },
      stderr: 'ignore',
    }),
  );
  console.log(
    `added latency: p50 ${(gateway.p50 - direct.p50).toFixed(3)} ms, p99 ${(gateway.p99 - direct.p99).toFixed(3)} ms; throughput ratio ${(gateway.perSecond / direct.perSecond).toFixed(2)} (targets: p50 ≤ 0.15 ms, p99 ≤ 1 ms, ratio ≥ 0.70)`,
  );
  const verify = await createCore({ wardenHome: home });
  const audited = verify.audit.query({ kind: 'mcp.response', limit: 1 });
  const result = verify.audit.verify();
  console.log(
    `audit: newest row id ${audited.rows[0]?.id ?? 0}; chain ${result.ok ? `verifies (${result.rows} rows)` : `BROKEN at ${result.firstBrokenId}`}`,
  );
  await verify.close();
} finally {
  await rm(home, { recursive: true, force: true });
}
