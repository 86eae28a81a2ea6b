/**
 * First-response benchmark: time from spawning a command to the first `initialize` answer of the
 * real `@modelcontextprotocol/server-filesystem`, for the bare server, `warden connect`
 * standalone (sandboxed), `warden connect` joining a running `warden serve`, and Anthropic's
 * sandbox-runtime (`srt`), interleaved round by round in one run. Then CLI start-up
 * (`warden --version`, `warden servers list`) against `node -e 0`. Prints medians and ratios.
 *
 *   npm run build && node bench/run.mjs first-response [--rounds N] [--compare DIR]
 *
 * --compare DIR adds the same `warden` rows for the built checkout in DIR (e.g. an older commit
 * extracted with `git archive` and built), measured in the same interleaved run.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultPolicy } from '../app/policy/defaults';
import { createCore } from '../main/core/core';
import { isLive, localChannelPath } from '../main/gateway/local-channel';

const { values } = parseArgs({
  options: { rounds: { type: 'string' }, compare: { type: 'string' } },
});
const ROUNDS = Number(values.rounds ?? 10);
// Run from the repository root (bench/run.mjs bundles this file elsewhere).
const root = resolve(process.cwd());
const warden = join(root, 'bin/warden.js');
const baseline = values.compare ? join(resolve(values.compare), 'bin/warden.js') : undefined;
const fsServer = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const srtCli = join(root, 'node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js');

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'first-response-bench', version: '1.0.0' },
  },
})}\n`;

interface Launch {
  label: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.stdin?.end();
  });
}

/** Milliseconds from spawn to the first stdout line answering request id 1. */
function firstResponse(launch: Launch): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(launch.command, launch.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...launch.env },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()).slice(-2000));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      for (const line of out.split('\n').slice(0, -1)) {
        if (line.includes('"id":1') && line.includes('"result"')) {
          const ms = performance.now() - started;
          child.stdout.removeAllListeners('data');
          void stop(child).then(() => done(ms));
          return;
        }
      }
    });
    child.once('exit', (code) => {
      if (!out.includes('"id":1'))
        fail(new Error(`${launch.label}: exited ${code} before answering\n${err.slice(-800)}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

/** Milliseconds for a command to run to completion (exit status 0 required). */
function runTime(command: string, args: string[], env?: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const r = spawnSync(command, args, { env: { ...process.env, ...env }, stdio: 'pipe' });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${r.stderr.toString()}`);
  return ms;
}

/** Why srt cannot run here, or undefined when it can. */
function srtUnavailable(): string | undefined {
  if (!existsSync(srtCli)) return '@anthropic-ai/sandbox-runtime is not installed';
  for (const tool of ['socat', 'rg', 'bwrap']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `${tool} is not on PATH (srt needs it)`;
  }
  return undefined;
}

if (!existsSync(join(root, 'out/cli/warden.mjs'))) {
  console.error('first-response: run "npm run build" first');
  process.exit(2);
}

const home = await mkdtemp(join(tmpdir(), 'warden-first-'));
const joinHome = await mkdtemp(join(tmpdir(), 'warden-first-join-'));
const data = await mkdtemp(join(tmpdir(), 'warden-first-data-'));
let serve: ChildProcess | undefined;
try {
  let sandboxed = false;
  for (const h of [home, joinHome]) {
    const core = await createCore({ wardenHome: h });
    sandboxed = core.hostReport().backend.available;
    await core.config.addServer({
      name: 'fs',
      launch: { command: process.execPath, args: [fsServer, data] },
      policy: {
        ...defaultPolicy(),
        isolation: sandboxed ? 'sandbox' : 'off',
        filesystem: {
          roots: [
            { path: join(root, 'node_modules'), access: 'read' },
            { path: data, access: 'read' },
          ],
        },
      },
      acknowledged: true,
    });
    await core.close();
  }

  serve = spawn(process.execPath, [warden, 'serve', '--no-open', '--gateway-port', '0'], {
    env: { ...process.env, WARDEN_HOME: joinHome },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const channel = localChannelPath(joinHome);
  for (let i = 0; i < 300 && !(await isLive(channel)); i++)
    await new Promise((r) => setTimeout(r, 100));
  if (!(await isLive(channel))) throw new Error('warden serve did not start its local channel');

  const launches: Launch[] = [
    { label: 'bare server', command: process.execPath, args: [fsServer, data] },
    {
      label: `warden connect (standalone${sandboxed ? ', sandboxed' : ', NOT sandboxed'})`,
      command: process.execPath,
      args: [warden, 'connect', 'fs'],
      env: { WARDEN_HOME: home },
    },
    {
      label: 'warden connect (joining warden serve)',
      command: process.execPath,
      args: [warden, 'connect', 'fs'],
      env: { WARDEN_HOME: joinHome },
    },
  ];
  if (baseline) {
    launches.push(
      ...launches.slice(1).map((l) => ({
        ...l,
        label: `${l.label.split(' (')[0]!} (${l.label.split(' (')[1]!.split(',')[0]!.replace(')', '')}, --compare)`,
        args: [baseline, ...l.args.slice(1)],
      })),
    );
  }
  const srtReason = srtUnavailable();
  if (srtReason === undefined) {
    const settings = join(data, '..', `srt-settings-${process.pid}.json`);
    await writeFile(
      settings,
      JSON.stringify({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [data], denyWrite: [] },
      }),
    );
    launches.push({
      label: 'srt (sandbox-runtime, bwrap)',
      command: process.execPath,
      args: [srtCli, '-s', settings, process.execPath, fsServer, data],
    });
  }

  console.log(
    `first-response benchmark: ${ROUNDS} interleaved rounds, spawn → first initialize answer of server-filesystem (Node ${process.version})`,
  );
  if (srtReason) console.log(`  srt row skipped: ${srtReason}`);
  const times = launches.map(() => [] as number[]);
  for (const l of launches) await firstResponse(l); // warm-up: file cache, compile cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, l] of launches.entries()) times[i]!.push(await firstResponse(l));
  }
  const bare = median(times[0]!);
  const srtIndex = launches.findIndex((l) => l.label.startsWith('srt'));
  const srtOver = srtIndex >= 0 ? median(times[srtIndex]!) - bare : undefined;
  for (const [i, l] of launches.entries()) {
    const m = median(times[i]!);
    const over = i === 0 ? '' : `  +${(m - bare).toFixed(0)} ms over bare`;
    const vsSrt =
      i > 0 && srtOver !== undefined && i !== srtIndex
        ? `  (${((m - bare) / srtOver).toFixed(2)}× srt's overhead)`
        : '';
    console.log(`  ${l.label.padEnd(44)} median ${m.toFixed(0).padStart(5)} ms${over}${vsSrt}`);
  }

  console.log(`CLI start-up: ${ROUNDS} interleaved rounds, median wall time to exit`);
  const cli: [string, string[], NodeJS.ProcessEnv?][] = [
    ['node -e 0', ['-e', '0']],
    ['warden --version', [warden, '--version']],
    ['warden servers list', [warden, 'servers', 'list'], { WARDEN_HOME: home }],
  ];
  if (baseline) {
    cli.push(
      ['warden --version (--compare)', [baseline, '--version']],
      ['warden servers list (--compare)', [baseline, 'servers', 'list'], { WARDEN_HOME: home }],
    );
  }
  const cliTimes = cli.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, args, env]] of cli.entries())
      cliTimes[i]!.push(runTime(process.execPath, args, env));
  }
  const nodeMs = median(cliTimes[0]!);
  for (const [i, [label]] of cli.entries()) {
    const m = median(cliTimes[i]!);
    const ratio = i === 0 ? '' : `  ${(m / nodeMs).toFixed(2)}× node -e 0`;
    console.log(`  ${label.padEnd(44)} median ${m.toFixed(0).padStart(5)} ms${ratio}`);
  }
} finally {
  if (serve) {
    serve.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
  }
  for (const d of [home, joinHome, data]) await rm(d, { recursive: true, force: true });
  await rm(join(data, '..', `srt-settings-${process.pid}.json`), { force: true });
}
