/**
 * First-response benchmark: time from spawning a command to the first `initialize` answer of the
 * real `@modelcontextprotocol/server-filesystem`, for the bare server, `warden connect`
 * standalone (sandboxed), `warden connect` joining a running `warden serve`, and Anthropic's
 * sandbox-runtime (`srt`), interleaved round by round in one run. `warden connect` is started as
 * AI clients' configs start it, through the shell front `bin/warden`; one more row joins with
 * `node bin/warden.js`, what the front saves, and one more starts the standalone launch's own
 * sandbox plan from a shell script before any Node (shell-launch.ts): the floor of a launch
 * without Node. Then CLI start-up (`warden --version`, `warden servers list`) against
 * `node -e 0`. Prints medians, each row's median difference with its baseline round by round, and
 * ratios.
 *
 *   npm run build && node bench/run.mjs first-response [--rounds N]
 *     [--compare DIR [--compare-node PATH]] [--cli-node PATH]
 *
 * --cli-node PATH runs the CLI start-up rows on that Node too (a newer one, with the compile
 * cache), each against its own `node -e 0`; the commands timed there need no native module.
 *
 * --compare DIR adds the same `warden` rows for the built checkout in DIR (e.g. an older commit
 * extracted with `git archive` and built), measured in the same interleaved run; they use state
 * folders of their own (the record of validated config bytes belongs to one build), and its
 * joining rows join a `warden serve` of that build, so that they show a change to the core too.
 *
 * --compare-node PATH runs DIR's rows and its `warden serve` on that Node, through DIR's shell
 * front as the packaged app's launcher runs the CLI on the app's own Node (one with the compile
 * cache). DIR's better-sqlite3 must be built for that Node.
 *
 * The `fs` server has the default hidden paths, whose name patterns (.env, .env.*) are searched
 * for below its roots at each launch; the "no hidden-path search" row launches the same server
 * with those two patterns un-hidden, which shows what the launch costs without that search.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { defaultPolicy } from '../app/policy/defaults';
import type { Policy } from '../app/policy/policy-schema';
import { createCore } from '../main/core/core';
import { isLive, localChannelPath } from '../main/gateway/local-channel';
import { REGISTRY, reservedRegistryAddresses } from './registry-addresses';
import { writeShellLaunch } from './shell-launch';
import { benchFlags } from './bench-flags';
import { startServe } from './serve-process';

const values = benchFlags(
  'first-response',
  'Spawn to the first initialize answer: the bare server, warden connect, srt, npx; CLI start-up.',
  {
    rounds: { type: 'number', fallback: 10, help: 'interleaved rounds' },
    compare: { type: 'string', arg: 'DIR', help: 'add the warden rows of the built checkout DIR' },
    'compare-node': { type: 'string', arg: 'PATH', help: "run DIR's rows on this Node" },
    'cli-node': { type: 'string', arg: 'PATH', help: 'add the CLI start-up rows on this Node' },
    'no-npx': { type: 'boolean', help: 'leave the npx rows out' },
  },
);
const ROUNDS = values.rounds;
// Run from the repository root (bench/run.mjs bundles this file elsewhere).
const root = resolve(process.cwd());
const warden = join(root, 'bin/warden.js');
const front = join(root, 'bin/warden');
const baseline = values.compare ? join(resolve(values.compare), 'bin/warden.js') : undefined;
const compareNode = values['compare-node'];
if (compareNode && !baseline) throw new Error('--compare-node needs --compare DIR');
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
  cwd?: string;
  /** Compared with another row (its index) rather than with the bare server. */
  against?: number;
  /** The Warden server a `warden connect` row starts (the --compare rows start it too). */
  name?: string;
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
      ...(launch.cwd ? { cwd: launch.cwd } : {}),
      env: { ...process.env, ...launch.env },
    });
    let out = '';
    let err = '';
    // A launch that never answers fails the row, with what it printed.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${launch.label}: no answer in 90 s\n${err.slice(-800)}`));
    }, 90_000);
    child.once('exit', () => clearTimeout(timer));
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

/** The version of the Node at `path` (v22.…); throws when it does not run. */
function nodeVersion(path: string): string {
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version) throw new Error(`${path}: not a Node that runs`);
  return version;
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
const compareHome = baseline ? await mkdtemp(join(tmpdir(), 'warden-first-compare-')) : undefined;
const compareJoinHome = baseline
  ? await mkdtemp(join(tmpdir(), 'warden-first-compare-join-'))
  : undefined;
const data = await mkdtemp(join(tmpdir(), 'warden-first-data-'));
// npx's own cache for the npx rows (warmed by the warm-up round), and a folder to run it from
// that has no node_modules (so npx does not take the checkout's copy of the package). Outside
// `data`: npx writes to its cache at every launch, and `data` is a root of the fs rows, whose
// launches would otherwise search a folder that changes between any two of them.
const npxData = await mkdtemp(join(tmpdir(), 'warden-first-npx-'));
const npmCache = join(npxData, 'npm-cache');
const npxCwd = join(npxData, 'npx-cwd');
const everything = JSON.parse(
  readFileSync(
    join(root, 'node_modules/@modelcontextprotocol/server-everything/package.json'),
    'utf8',
  ),
) as { version: string };
const npxPackage = `@modelcontextprotocol/server-everything@${everything.version}`;
const serves: ChildProcess[] = [];
// The floor of a launch without Node: `fs`'s plan started from a shell (bench/shell-launch.ts).
const shellDir = await mkdtemp(join(tmpdir(), 'warden-first-shell-'));
const fifoHop = join(root, 'bench/fifo-hop.mjs');
let shellLaunch: Awaited<ReturnType<typeof writeShellLaunch>> = { reason: 'not written' };
const registryAddresses = values['no-npx'] ? [] : await reservedRegistryAddresses();
try {
  let sandboxed = false;
  const compareHomes = compareHome && compareJoinHome ? [compareHome, compareJoinHome] : [];
  for (const h of [home, joinHome, ...compareHomes]) {
    const core = await createCore({ wardenHome: h });
    sandboxed = core.hostReport().backend.available;
    const fsPolicy = {
      ...defaultPolicy(),
      isolation: sandboxed ? ('sandbox' as const) : ('off' as const),
      filesystem: {
        roots: [
          { path: join(root, 'node_modules'), access: 'read' as const },
          { path: data, access: 'read' as const },
        ],
      },
    };
    const unhidden: Policy = { ...fsPolicy, guards: { hide: [], unhide: ['.env', '.env.*'] } };
    for (const [name, policy] of [
      ['fs', fsPolicy],
      ['fs-unhidden', unhidden],
    ] as const) {
      await core.config.addServer({
        name,
        launch: { command: process.execPath, args: [fsServer, data] },
        policy,
        acknowledged: true,
      });
    }
    if (h === home) {
      const fs = core.config.readServer('fs')!;
      shellLaunch = sandboxed
        ? await writeShellLaunch(core.backend, fs, core.config.readGuards(), shellDir, fifoHop)
        : { reason: 'no sandbox backend' };
    }
    if (h === home || h === joinHome) {
      const policy = defaultPolicy();
      policy.isolation = sandboxed ? 'sandbox' : 'off';
      // As import proposes it for npx: the npm cache writable and the registry reachable.
      policy.filesystem.roots = [{ path: npmCache, access: 'write' }];
      policy.env.set.npm_config_cache = { kind: 'plain', value: npmCache };
      policy.network = {
        ...policy.network,
        mode: 'allowlist',
        allow: [REGISTRY],
        allowAddresses: registryAddresses,
      };
      await core.config.addServer({
        name: 'npx-everything',
        launch: { command: 'npx', args: ['-y', npxPackage] },
        policy,
        acknowledged: true,
      });
    }
    await core.close();
  }
  await mkdir(npmCache, { recursive: true });
  await mkdir(npxCwd, { recursive: true });

  /** Starts `warden serve` of the build at `bin` for `wardenHome`; resolves once it listens. */
  const serveFor = async (bin: string, wardenHome: string, node = process.execPath) => {
    const channel = localChannelPath(wardenHome);
    serves.push(await startServe({ bin, wardenHome, node, ready: () => isLive(channel) }));
  };
  await serveFor(warden, joinHome);
  if (baseline) await serveFor(baseline, compareJoinHome!, compareNode);

  // `warden connect` as AI clients' configs start it: the shell front `bin/warden`, which joins a
  // running core without Node and hands everything else to bin/warden.js on this Node.
  const connectTo = (label: string, name: string, wardenHome: string): Launch => ({
    label,
    command: front,
    args: ['connect', name],
    env: { WARDEN_HOME: wardenHome, WARDEN_NODE: process.execPath },
    name,
  });
  const launches: Launch[] = [
    { label: 'bare server', command: process.execPath, args: [fsServer, data] },
    connectTo(
      `warden connect (standalone${sandboxed ? ', sandboxed' : ', NOT sandboxed'})`,
      'fs',
      home,
    ),
    connectTo('warden connect (joining warden serve)', 'fs', joinHome),
    connectTo('  standalone, no hidden-path search', 'fs-unhidden', home),
    connectTo('  joining, no hidden-path search', 'fs-unhidden', joinHome),
    {
      label: '  joining, node bin/warden.js (no shell front)',
      command: process.execPath,
      args: [warden, 'connect', 'fs'],
      env: { WARDEN_HOME: joinHome },
    },
  ];
  if (baseline) {
    // The compared build is started as its own clients' configs started it: bin/warden.js, or on
    // another Node, its shell front with that Node (as the packaged app's launcher starts it).
    const tag = compareNode ? `--compare on Node ${nodeVersion(compareNode)}` : '--compare';
    launches.push(
      ...launches
        .slice(1)
        .filter((l) => l.name !== undefined)
        .map((l) => {
          const wardenHome = l.env?.WARDEN_HOME === home ? compareHome! : compareJoinHome!;
          return {
            ...l,
            label: `${l.label.replace(/\)$/, '').replace(/, sandboxed$/, '')}${l.label.endsWith(')') ? `, ${tag})` : ` (${tag})`}`,
            ...(compareNode
              ? {
                  command: join(dirname(baseline), 'warden'),
                  args: ['connect', l.name!],
                  env: { WARDEN_HOME: wardenHome, WARDEN_NODE: compareNode },
                }
              : {
                  command: process.execPath,
                  args: [baseline, 'connect', l.name!],
                  env: { WARDEN_HOME: wardenHome },
                }),
          };
        }),
    );
  }
  if ('script' in shellLaunch) {
    launches.push({
      label: '  the plan started by a shell, bare Node relay',
      command: shellLaunch.script,
      args: [],
    });
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

  // A second launch of an npx server (its package already in npx's cache), direct and through
  // Warden; the first launch, in the warm-up round, fills the cache.
  let npxReason: string | undefined = values['no-npx'] ? 'skipped by --no-npx' : undefined;
  if (!npxReason && spawnSync('sh', ['-c', 'command -v npx']).status !== 0)
    npxReason = 'npx is not on PATH';
  const npxDirect: Launch = {
    label: 'npx -y server-everything (warm cache)',
    command: 'npx',
    args: ['-y', npxPackage],
    env: { npm_config_cache: npmCache },
    cwd: npxCwd,
  };
  if (!npxReason) {
    try {
      await firstResponse(npxDirect);
    } catch (error) {
      npxReason = `npx could not start ${npxPackage} (is the npm registry reachable?): ${(error as Error).message.split('\n')[0]!}`;
    }
  }
  const npxWarden: Launch = {
    label: `  through warden connect (standalone${sandboxed ? ', sandboxed' : ''})`,
    command: front,
    args: ['connect', 'npx-everything'],
    env: { WARDEN_HOME: home, WARDEN_NODE: process.execPath },
    against: launches.length,
  };
  if (!npxReason) {
    try {
      await firstResponse(npxWarden);
    } catch (error) {
      npxReason = `npx through warden connect did not answer: ${(error as Error).message.split('\n').slice(0, 3).join(' | ')}`;
    }
  }
  // With the app (here `warden serve`) running, as on a user's machine: joins through bin/warden.
  const npxJoin: Launch = {
    ...npxWarden,
    label: '  through warden connect (joining warden serve)',
    env: { WARDEN_HOME: joinHome, WARDEN_NODE: process.execPath },
  };
  if (!npxReason) launches.push(npxDirect, npxWarden, npxJoin);

  console.log(
    `first-response benchmark: ${ROUNDS} interleaved rounds, spawn → first initialize answer of server-filesystem (Node ${process.version})`,
  );
  if (srtReason) console.log(`  srt row skipped: ${srtReason}`);
  if (npxReason) console.log(`  npx rows skipped: ${npxReason}`);
  if ('reason' in shellLaunch)
    console.log(`  the row of the plan started by a shell skipped: ${shellLaunch.reason}`);
  const times = launches.map(() => [] as number[]);
  for (const l of launches) await firstResponse(l); // warm-up: file cache, compile cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, l] of launches.entries()) times[i]!.push(await firstResponse(l));
  }
  const bare = median(times[0]!);
  // The machine's speed drifts between rounds (a slow stretch slows every row of a round alike),
  // so each row also shows the median of its differences with its baseline in the same round.
  const perRound = (row: number, base: number) =>
    median(times[row]!.map((t, round) => t - times[base]![round]!));
  const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(0)}`;
  const srtIndex = launches.findIndex((l) => l.label.startsWith('srt'));
  const srtOver = srtIndex >= 0 ? median(times[srtIndex]!) - bare : undefined;
  for (const [i, l] of launches.entries()) {
    const m = median(times[i]!);
    if (l.against !== undefined || l === npxDirect) {
      const base = l.against === undefined ? undefined : median(times[l.against]!);
      const vs =
        base === undefined
          ? ''
          : `  ${signed(m - base)} ms over direct npx (per round ${signed(perRound(i, l.against!))})`;
      console.log(`  ${l.label.padEnd(44)} median ${m.toFixed(0).padStart(5)} ms${vs}`);
      continue;
    }
    const over =
      i === 0 ? '' : `  ${signed(m - bare)} ms over bare (per round ${signed(perRound(i, 0))})`;
    const vsSrt =
      i > 0 && srtOver !== undefined && i !== srtIndex
        ? `  (${((m - bare) / srtOver).toFixed(2)}× srt's overhead)`
        : '';
    console.log(`  ${l.label.padEnd(44)} median ${m.toFixed(0).padStart(5)} ms${over}${vsSrt}`);
  }

  console.log(
    "  targets: warden connect at most +100 ms over bare, and at most 0.20× srt's overhead",
  );

  console.log(`CLI start-up: ${ROUNDS} interleaved rounds, median wall time to exit`);
  // Each Node's rows are set against `node -e 0` on the same Node (the first row of its group).
  type CliRow = [label: string, node: string, args: string[], env?: NodeJS.ProcessEnv];
  const cliRows = (node: string, tag: string): CliRow[] => {
    const rows: CliRow[] = [
      [`node -e 0${tag}`, node, ['-e', '0']],
      [`warden --version${tag}`, node, [warden, '--version']],
      [`warden servers list${tag}`, node, [warden, 'servers', 'list'], { WARDEN_HOME: home }],
    ];
    if (baseline) {
      rows.push(
        [`warden --version (--compare)${tag}`, node, [baseline, '--version']],
        [
          `warden servers list (--compare)${tag}`,
          node,
          [baseline, 'servers', 'list'],
          { WARDEN_HOME: compareHome! },
        ],
      );
    }
    return rows;
  };
  const groups = [cliRows(process.execPath, '')];
  const cliNode = values['cli-node'];
  if (cliNode) groups.push(cliRows(cliNode, ` (Node ${nodeVersion(cliNode)})`));
  const cli = groups.flat();
  const cliTimes = cli.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, node, args, env]] of cli.entries())
      cliTimes[i]!.push(runTime(node, args, env));
  }
  let nodeMs = 0;
  for (const [i, [label, , args]] of cli.entries()) {
    const m = median(cliTimes[i]!);
    const base = args[0] === '-e';
    if (base) nodeMs = m;
    const ratio = base ? '' : `  ${(m / nodeMs).toFixed(2)}× node -e 0`;
    console.log(`  ${label.padEnd(44)} median ${m.toFixed(0).padStart(5)} ms${ratio}`);
  }
  console.log('  target: at most 2× node -e 0');
} finally {
  for (const serve of serves) serve.kill('SIGTERM');
  if (serves.length > 0) await new Promise((r) => setTimeout(r, 500));
  for (const d of [
    home,
    joinHome,
    data,
    npxData,
    shellDir,
    ...(compareHome ? [compareHome, compareJoinHome!] : []),
  ])
    await rm(d, { recursive: true, force: true });
  await rm(join(data, '..', `srt-settings-${process.pid}.json`), { force: true });
}
