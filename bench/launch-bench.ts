/**
 * Launch benchmark: time from spawn to the first line of output, bare spawn versus each Linux
 * backend (bubblewrap + seccomp, and Landlock + seccomp through its launcher, compiled and spawned
 * as the supervisor does), in the same process and interleaved, for `node -e` and
 * for a real MCP server's first response (the initialize response of server-memory, launched by
 * Node directly). Prints medians, the ratios and the overhead per launch (target: under 30 ms).
 * With the built CLI present it also times `warden exec` end to end, which adds a Node start.
 * For a server with a network it times the same first response through bubblewrap with the egress
 * init in front, the compiled one (`out/sandbox-init/warden-init`) against the Node script one,
 * interleaved with the same server without a network.
 *
 *   node bench/run.mjs launch-bench [--runs N]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultPolicy } from '../app/policy/defaults';
import {
  type EgressRuntime,
  currentEgressRuntime,
  mergeEgressEnv,
  startEgress,
} from '../main/egress/start-egress';
import type { LaunchPlan, SandboxBackend } from '../main/sandbox/backend';
import { linuxBackend } from '../main/sandbox/linux/landlock/choose-linux-backend';
import { spawnPlan } from '../main/sandbox/spawn-plan';
import { initializeRequest } from '../test/helpers/mcp-messages';
import { benchFlags } from './bench-flags';

const { runs } = benchFlags(
  'launch-bench',
  'Spawn to first output: bare against bubblewrap and Landlock, and a server with a network.',
  { runs: { type: 'number', fallback: 30, help: 'launches of each kind' } },
);
// Run from the checkout (node bench/run.mjs …), whose node_modules holds the MCP server.
const root = process.cwd();
const require = createRequire(join(root, 'package.json'));
const memoryBin = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist',
  'index.js',
);
const cli = join(root, 'out', 'cli', 'warden.mjs');

const INIT = JSON.stringify(initializeRequest('bench', { version: '0' })) + '\n';

/**
 * Milliseconds from spawn to the first stdout line of `plan` (input written to stdin, if any);
 * `attach` takes the egress init's channel on fd 3, as the launch does.
 */
async function firstLine(
  plan: LaunchPlan,
  input?: string,
  attach?: (child: import('node:child_process').ChildProcess) => void,
): Promise<number> {
  const started = process.hrtime.bigint();
  const spawned = await spawnPlan(plan, {
    stdio: [input ? 'pipe' : 'ignore', 'pipe', 'ignore'],
    stopGraceMs: 0,
    ...(attach ? { extraFds: ['ipc' as const] } : {}),
  });
  attach?.(spawned.child);
  if (input) spawned.child.stdin?.write(input);
  const ms = await new Promise<number>((resolveLine, reject) => {
    let buf = '';
    spawned.child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolveLine(Number(process.hrtime.bigint() - started) / 1e6);
    });
    void spawned.exited.then((e) =>
      reject(new Error(`exited before a line: ${JSON.stringify(e)}`)),
    );
  });
  await spawned.stop();
  return ms;
}

/** Milliseconds from spawning `warden exec …` to its first line. */
function cliFirstLine(args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [cli, 'exec', ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolveLine) => {
    child.stdout.once('data', () => {
      resolveLine(Number(process.hrtime.bigint() - started) / 1e6);
      child.kill('SIGKILL');
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const backends: Array<[string, SandboxBackend]> = [
  ['bwrap', linuxBackend({ choice: 'bwrap' })],
  ['landlock', linuxBackend({ choice: 'landlock' })],
];
const instanceDir = mkdtempSync(join(tmpdir(), 'warden-bench-'));

async function compilePlan(
  backend: SandboxBackend,
  command: string,
  args: string[],
  roots: string[],
): Promise<LaunchPlan | string> {
  const policy = defaultPolicy();
  policy.filesystem.roots = roots.map((path) => ({ path, access: 'read' as const }));
  const r = await backend.compile(
    policy,
    { command, args },
    { instanceDir, hostEnv: process.env, secrets: {} },
  );
  return r.ok ? r.value : `${r.error.kind}: ${r.error.message}`;
}

async function compare(
  name: string,
  command: string,
  args: string[],
  roots: string[],
  input?: string,
) {
  const bare: LaunchPlan = {
    argv: [command, ...args],
    env: { PATH: '/usr/bin:/bin' },
    fdData: [],
    backend: 'bare',
    enforcedLimits: {},
  };
  const plans: Array<[string, LaunchPlan, number]> = [];
  for (const [label, backend] of backends) {
    await compilePlan(backend, command, args, roots); // the first compile probes the host
    const compileStart = process.hrtime.bigint();
    const plan = await compilePlan(backend, command, args, roots);
    const compileMs = Number(process.hrtime.bigint() - compileStart) / 1e6;
    if (typeof plan === 'string')
      console.log(`${name.padEnd(28)} ${label}: not measured (${plan})`);
    else plans.push([label, plan, compileMs]);
  }
  const times: Record<string, number[]> = { bare: [] };
  for (const [label] of plans) times[label] = [];
  for (let i = 0; i < 2 + runs; i++) {
    const t = await firstLine(bare, input);
    if (i >= 2) times.bare!.push(t);
    for (const [label, plan] of plans) {
      const ms = await firstLine(plan, input);
      if (i >= 2) times[label]!.push(ms);
    }
  }
  const b = median(times.bare!);
  const cells = plans.map(([label, , compileMs]) => {
    const s = median(times[label]!);
    return `${label} ${s.toFixed(1).padStart(7)} ms (ratio ${(s / b).toFixed(2)}, overhead ${(s - b).toFixed(1)} ms, + compile ${compileMs.toFixed(1)} ms)`;
  });
  console.log(`${name.padEnd(28)} bare ${b.toFixed(1).padStart(7)} ms   ${cells.join('   ')}`);
}

console.log(
  `launch-bench: ${runs} runs each, medians; node ${process.version}, ${process.platform}/${process.arch}, ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
const node = realpathSync(process.execPath);
await compare('node -e (first line)', node, ['-e', 'console.log("ready")'], []);
await compare('server-memory (initialize)', node, [memoryBin], [join(root, 'node_modules')], INIT);

/**
 * The first response of a server with a network (an allowlist) through bubblewrap: the egress
 * init of `runtime` starts first, hands its socket over, then the server runs.
 */
async function networkedFirstLine(runtime: EgressRuntime, args: string[], roots: string[]) {
  const network = {
    ...defaultPolicy().network,
    mode: 'allowlist' as const,
    allow: ['example.com'],
  };
  const egress = startEgress({
    network,
    server: 'bench',
    instanceId: 'bench#1',
    runtime,
    onDecision: () => undefined,
  });
  if (!egress.ok) throw new Error(egress.error.message);
  const policy = defaultPolicy();
  policy.network = network;
  policy.filesystem.roots = roots.map((path) => ({ path, access: 'read' as const }));
  const compiled = await backends[0]![1].compile(
    policy,
    { command: node, args },
    { instanceDir, hostEnv: process.env, secrets: {}, ...egress.value.context },
  );
  if (!compiled.ok) throw new Error(compiled.error.message);
  mergeEgressEnv(compiled.value.env, egress.value.env);
  try {
    return await firstLine(compiled.value, INIT, (child) => egress.value.attach(child));
  } finally {
    await egress.value.close();
  }
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(1)}`;
const initOut = join(root, 'out');
const withProgram = currentEgressRuntime(initOut, true);
if (process.platform === 'linux' && existsSync(withProgram.initProgram!)) {
  const script = currentEgressRuntime(initOut);
  const roots = [join(root, 'node_modules')];
  const plain = await compilePlan(backends[0]![1], node, [memoryBin], roots);
  if (typeof plain !== 'string') {
    const times = { none: [] as number[], program: [] as number[], script: [] as number[] };
    for (let i = 0; i < 2 + runs; i++) {
      const none = await firstLine(plain, INIT);
      const program = await networkedFirstLine(withProgram, [memoryBin], roots);
      const scripted = await networkedFirstLine(script, [memoryBin], roots);
      if (i < 2) continue;
      times.none.push(none);
      times.program.push(program);
      times.script.push(scripted);
    }
    const [n, p, sc] = [median(times.none), median(times.program), median(times.script)];
    console.log(
      `${'server-memory, with network'.padEnd(28)} bwrap, no network ${n.toFixed(1).padStart(7)} ms   ` +
        `compiled init ${p.toFixed(1).padStart(7)} ms (${signed(p - n)})   ` +
        `Node script init ${sc.toFixed(1).padStart(7)} ms (${signed(sc - n)})   ` +
        `compiled/script ${(p / sc).toFixed(2)}`,
    );
  }
} else {
  console.log(
    `${'server-memory, with network'.padEnd(28)} not measured: out/sandbox-init/warden-init was not built`,
  );
}

if (existsSync(cli)) {
  const probe = await cliFirstLine(['--', node, '-e', 'console.log(1)']).catch(() => NaN);
  if (!Number.isNaN(probe)) {
    const off: number[] = [];
    const on: number[] = [];
    const withInit: number[] = [];
    const net = ['--net', 'allowlist', '--allow', 'example.com'];
    for (let i = 0; i < Math.min(runs, 15); i++) {
      off.push(await cliFirstLine(['--isolation', 'off', '--', node, '-e', 'console.log(1)']));
      on.push(await cliFirstLine(['--', node, '-e', 'console.log(1)']));
      withInit.push(await cliFirstLine([...net, '--', node, '-e', 'console.log(1)']));
    }
    const [b, s] = [median(off), median(on)];
    console.log(
      `${'warden exec node -e (CLI)'.padEnd(28)} off  ${b.toFixed(1).padStart(7)} ms   sandbox ${s.toFixed(1).padStart(7)} ms   ` +
        `ratio ${(s / b).toFixed(2)}   overhead ${(s - b).toFixed(1)} ms   (host facts reused from a recent probe, see probe-cache.ts)`,
    );
    // With a network policy the egress init starts first (the compiled one where built), then the
    // server.
    const n = median(withInit);
    console.log(
      `${'  … with the egress init'.padEnd(28)} sandbox ${s.toFixed(1).padStart(7)} ms   +init ${n.toFixed(1).padStart(7)} ms   ` +
        `init adds ${(n - s).toFixed(1)} ms`,
    );
  }
}
