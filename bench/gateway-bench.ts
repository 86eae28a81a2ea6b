/**
 * Gateway benchmark: small `tools/call` round trips to a real MCP server, direct over stdio vs
 * through `warden connect` with auditing on, side by side in one run: standalone (the connect
 * process runs its own core), and joining a running `warden serve` through `bin/warden` (as AI
 * clients' configs start it while the app runs). Prints p50, p99 and calls per second for each,
 * and the latency each adds.
 *
 *   node bench/run.mjs gateway-bench [--calls N] [--concurrency N] [--rounds N]
 *     [--baseline DIR] [--cpu-prof-dir DIR] [--hop] [--busy]
 *
 * `--rounds` interleaves the measurements N times and prints the median of each figure (a busy
 * machine's noise then hits every side alike). `--baseline` also measures `warden connect` of
 * another built checkout in the same rounds, for a before/after comparison. `--cpu-prof-dir`
 * writes CPU profiles of this checkout's `warden connect` process (one per thread) there. `--hop`
 * adds the server behind a bare Node line relay (bench/line-hop.mjs, unsandboxed, nothing checked
 * or recorded): the floor of one more Node process on the path. `--busy` measures every side a
 * second time in each round while another process (niced, unrelated to the relay) keeps a fifth
 * of one CPU busy in 2 ms bursts: how much the machine's own scheduling of pipe wake-ups, with
 * work running beside the relay, adds to each side's tail (the audit writer is such work).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultPolicy } from '../app/policy/defaults';
import { createCore } from '../main/core/core';
import { DEFERRED_WRITER_THREAD_DELAY_MS } from '../main/core/core-audit';
import { benchFlags } from './bench-flags';
import { startServe } from './serve-process';

const values = benchFlags(
  'gateway-bench',
  'tools/call round trips, direct against warden connect (standalone and joining), audit on.',
  {
    calls: { type: 'number', fallback: 3000, help: 'calls per side and round' },
    concurrency: { type: 'number', fallback: 16, help: 'calls in flight' },
    rounds: { type: 'number', fallback: 1, help: 'interleaved rounds (medians printed)' },
    baseline: { type: 'string', arg: 'DIR', help: 'add warden connect of the built checkout DIR' },
    'cpu-prof-dir': { type: 'string', arg: 'DIR', help: "CPU profiles of Warden's process" },
    hop: { type: 'boolean', help: 'add the server behind a bare Node line relay' },
    busy: { type: 'boolean', help: 'measure again beside a process busy a fifth of a CPU' },
  },
);
const CALLS = values.calls;
const CONCURRENCY = values.concurrency;
const ROUNDS = values.rounds;
const baseline = values.baseline ? resolve(values.baseline) : undefined;
// Run from the repository root (bench/run.mjs bundles this file elsewhere).
const root = resolve(process.cwd());
const profileDir = values['cpu-prof-dir'] ? resolve(values['cpu-prof-dir']) : undefined;
const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The machine's 1-, 5- and 15-minute load averages, as `uptime` prints them. */
const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`;

/**
 * Starts the background load of `--busy`: 2 ms of spinning every 10 ms, at nice 10, until killed.
 */
function busyLoad(): ChildProcess {
  const spin =
    'for (;;) { const t = Date.now(); while (Date.now() - t < 2); ' +
    'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 8); }';
  const child = spawn(process.execPath, ['-e', spin], { stdio: 'ignore' });
  if (child.pid) setPriority(child.pid, 10);
  return child;
}

/** Stops a background load and waits for it to go. */
async function stopLoad(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/**
 * CPU time used so far (user + system, and system alone, in ms), from a /proc stat file; undefined
 * off Linux.
 */
async function statCpu(path: string): Promise<{ all: number; kernel: number } | undefined> {
  try {
    const stat = await readFile(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, in clock ticks (100 per second here).
    const kernel = (Number(fields[12]) * 1000) / 100;
    return { all: (Number(fields[11]) * 1000) / 100 + kernel, kernel };
  } catch {
    return undefined;
  }
}

/**
 * CPU time of a whole process (and the part of it spent in the kernel), of its main thread (the
 * one that relays) and of each other thread by id, in ms.
 */
async function cpuMs(
  pid: number | null,
): Promise<
  { all: number; kernel: number; main: number; threads: Map<string, number> } | undefined
> {
  if (!pid) return undefined;
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const [all, main, ...others] = await Promise.all([
    statCpu(`/proc/${pid}/stat`),
    statCpu(`/proc/${pid}/task/${pid}/stat`),
    ...tids.map((tid) => statCpu(`/proc/${pid}/task/${tid}/stat`)),
  ]);
  const threads = new Map<string, number>();
  for (const [i, tid] of tids.entries())
    if (tid !== String(pid) && others[i] !== undefined) threads.set(tid, others[i].all);
  return all && main ? { all: all.all, kernel: all.kernel, main: main.all, threads } : undefined;
}

/** The thread that used the most CPU between two readings (the audit writer, when there is one). */
function busiestThread(
  before: Map<string, number>,
  after: Map<string, number>,
): number | undefined {
  let most: number | undefined;
  for (const [tid, ms] of after) {
    const used = ms - (before.get(tid) ?? 0);
    if (most === undefined || used > most) most = used;
  }
  return most;
}

/**
 * Measures `transport`'s client side; `cpuPid` is the process whose CPU counts (default: the one
 * the client spawned).
 */
async function measure(label: string, transport: StdioClientTransport, cpuPid?: number) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const connected = performance.now();
  await client.connect(transport);
  const call = () => client.callTool({ name: 'echo', arguments: { message: 'ping' } });
  // Warm-up, and past the start of a standalone session's audit writer thread (until then its
  // core writes the log itself): what is measured is a session's steady state.
  for (let i = 0; i < 200; i++) await call();
  while (performance.now() - connected < DEFERRED_WRITER_THREAD_DELAY_MS + 500) await call();
  const cpuBefore = await cpuMs(cpuPid ?? transport.pid);
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
  const cpuAfter = await cpuMs(cpuPid ?? transport.pid);
  await client.close();
  // CPU per call of the process the client spawned (the server itself, or `warden connect`,
  // which relays, gates and audits): steadier than wall-clock figures on a busy machine.
  const perCall = (ms: number) => (ms * 1000) / (2 * CALLS);
  const cpuPerCall =
    cpuBefore && cpuAfter
      ? {
          all: perCall(cpuAfter.all - cpuBefore.all),
          kernel: perCall(cpuAfter.kernel - cpuBefore.kernel),
          main: perCall(cpuAfter.main - cpuBefore.main),
          busiest: perCall(busiestThread(cpuBefore.threads, cpuAfter.threads) ?? 0),
        }
      : undefined;
  const r: Figures = {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    perSecond,
    cpuPerCall,
  };
  if (ROUNDS > 1) console.log(`  ${label.padEnd(32)} ${describe(r)}`);
  return r;
}

interface Figures {
  p50: number;
  p99: number;
  perSecond: number;
  /**
   * µs of CPU per call: the whole process, the part of it in the kernel (system calls, waking the
   * other side of a pipe), its main thread and its busiest other thread.
   */
  cpuPerCall: { all: number; kernel: number; main: number; busiest: number } | undefined;
}

function describe(r: Figures): string {
  const c = r.cpuPerCall;
  const cpu = c
    ? `   ${c.all.toFixed(0)} µs CPU/call, ${c.kernel.toFixed(0)} in the kernel${c.main < c.all - 1 ? ` (${c.main.toFixed(0)} on the main thread, ${c.busiest.toFixed(0)} on the busiest other)` : ''}`
    : '';
  return `p50 ${r.p50.toFixed(3)} ms   p99 ${r.p99.toFixed(3)} ms   ${Math.round(r.perSecond)} calls/s (${CONCURRENCY} in flight)${cpu}`;
}

/** The median of each figure over the rounds. */
function median(rounds: Figures[]): Figures {
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cpus = rounds.flatMap((r) => (r.cpuPerCall === undefined ? [] : [r.cpuPerCall]));
  return {
    p50: mid(rounds.map((r) => r.p50)),
    p99: mid(rounds.map((r) => r.p99)),
    perSecond: mid(rounds.map((r) => r.perSecond)),
    cpuPerCall: cpus.length
      ? {
          all: mid(cpus.map((c) => c.all)),
          kernel: mid(cpus.map((c) => c.kernel)),
          main: mid(cpus.map((c) => c.main)),
          busiest: mid(cpus.map((c) => c.busiest)),
        }
      : undefined,
  };
}

const home = await mkdtemp(join(tmpdir(), 'warden-bench-'));
const joinHome = await mkdtemp(join(tmpdir(), 'warden-bench-join-'));
let serve: ChildProcess | undefined;
try {
  let sandboxed = false;
  for (const wardenHome of [home, joinHome]) {
    const core = await createCore({ wardenHome });
    sandboxed = core.hostReport().backend.available;
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
  }
  // A running core for the joining side, as the app is on a user's machine.
  serve = await startServe({
    bin: join(root, 'bin/warden.js'),
    wardenHome: joinHome,
    ready: () => existsSync(join(joinHome, 'run', 'door')),
  });
  console.log(
    `gateway benchmark: ${CALLS} sequential echo calls, then ${CALLS} with ${CONCURRENCY} in flight; server ${sandboxed ? 'sandboxed' : 'NOT sandboxed (no backend on this host)'}; ${load()}`,
  );
  const sides: { label: string; transport: () => StdioClientTransport; cpuPid?: number }[] = [
    {
      label: 'direct stdio',
      transport: () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [everything, 'stdio'],
          stderr: 'ignore',
        }),
    },
    {
      label: 'warden connect (audit on)',
      transport: () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [...profileArgs, join(root, 'bin/warden.js'), 'connect', 'everything'],
          env: { ...process.env, WARDEN_HOME: home },
          stderr: 'ignore',
        }),
    },
    {
      // As AI clients' configs start it, joining the running core: bin/warden relays with `cat`;
      // the CPU counted is the core's.
      label: 'joining warden serve (audit on)',
      transport: () =>
        new StdioClientTransport({
          command: join(root, 'bin/warden'),
          args: ['connect', 'everything'],
          env: { ...process.env, WARDEN_HOME: joinHome, WARDEN_NODE: process.execPath },
          stderr: 'ignore',
        }),
      cpuPid: serve.pid,
    },
  ];
  if (baseline) {
    sides.push({
      label: 'baseline warden connect',
      transport: () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [join(baseline, 'bin/warden.js'), 'connect', 'everything'],
          env: { ...process.env, WARDEN_HOME: home },
          stderr: 'ignore',
        }),
    });
  }
  if (values.hop) {
    sides.push({
      label: 'bare Node line hop',
      transport: () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [join(root, 'bench/line-hop.mjs'), everything, 'stdio'],
          stderr: 'ignore',
        }),
    });
  }
  const figures = sides.map(() => [] as Figures[]);
  const busyFigures = sides.map(() => [] as Figures[]);
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`round ${round}/${ROUNDS} (${load()})`);
    for (const [i, side] of sides.entries()) {
      figures[i]!.push(await measure(side.label, side.transport(), side.cpuPid));
      if (!values.busy) continue;
      const background = busyLoad();
      try {
        busyFigures[i]!.push(await measure(`${side.label}, busy`, side.transport(), side.cpuPid));
      } finally {
        await stopLoad(background);
      }
    }
  }
  const [direct, gateway, joining] = figures.map(median);
  const before = baseline ? median(figures[3]!) : undefined;
  const hop = values.hop ? median(figures.at(-1)!) : undefined;
  if (ROUNDS > 1) console.log(`median of ${ROUNDS} rounds (${load()} at the end):`);
  for (const [i, side] of sides.entries())
    console.log(`${side.label.padEnd(34)} ${describe(median(figures[i]!))}`);
  const added = (g: Figures) =>
    `added latency: p50 ${(g.p50 - direct!.p50).toFixed(3)} ms, p99 ${(g.p99 - direct!.p99).toFixed(3)} ms; throughput ratio ${(g.perSecond / direct!.perSecond).toFixed(2)}`;
  console.log(`standalone ${added(gateway!)} (targets: p50 ≤ 0.15 ms, p99 ≤ 1 ms, ratio ≥ 0.70)`);
  console.log(`joining ${added(joining!)}`);
  if (before) console.log(`baseline ${added(before)}`);
  if (hop) console.log(`bare Node line hop ${added(hop)}`);
  if (values.busy) {
    const busyDirect = median(busyFigures[0]!);
    console.log(
      'with a niced process beside, busy 2 ms in every 10 ms (each side against direct stdio, also busy):',
    );
    for (const [i, side] of sides.entries()) {
      const b = median(busyFigures[i]!);
      console.log(
        `  ${side.label.padEnd(32)} ${describe(b)}` +
          (i === 0
            ? ''
            : `   added p50 ${(b.p50 - busyDirect.p50).toFixed(3)} ms, p99 ${(b.p99 - busyDirect.p99).toFixed(3)} ms`),
      );
    }
  }
  const verify = await createCore({ wardenHome: home });
  const audited = await verify.audit.query({ kind: 'mcp.response', limit: 1 });
  const result = verify.audit.verify();
  console.log(
    `audit: newest row id ${audited.rows[0]?.id ?? 0}; chain ${result.ok ? `verifies (${result.rows} rows)` : `BROKEN at ${result.firstBrokenId}`}`,
  );
  await verify.close();
} finally {
  if (serve) {
    const exited = new Promise((r) => serve!.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
  }
  await rm(home, { recursive: true, force: true });
  await rm(joinHome, { recursive: true, force: true });
}
