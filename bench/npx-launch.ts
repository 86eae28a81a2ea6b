/**
 * Second launch of an `npx -y` server, direct against `warden connect` (sandboxed, standalone,
 * through the shell front `bin/warden` as AI clients start it), interleaved in one run: the median
 * time from spawning to the first `initialize` answer, with npm's cache already warm (a first
 * direct launch fills it). Through Warden the server gets the
 * same cache folder read-write (`npm_config_cache`, as import's npx preset sets it, since HOME is
 * /home/sandbox inside) and the registry through the egress broker.
 * Run: `node bench/run.mjs npx-launch [--rounds 5] [--compare DIR]`.
 *
 * --compare DIR adds `warden connect` of the built checkout in DIR (e.g. an older commit extracted
 * with `git archive` and built) in the same rounds, with a state folder of its own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { REGISTRY, reservedRegistryAddresses } from './registry-addresses';
import { benchFlags } from './bench-flags';

const flags = benchFlags(
  'npx-launch',
  'Second launch of an npx -y server with a warm cache, direct against warden connect.',
  {
    rounds: { type: 'number', fallback: 5, help: 'interleaved rounds' },
    compare: { type: 'string', arg: 'DIR', help: 'add warden connect of the built checkout DIR' },
  },
);
const ROUNDS = flags.rounds;
const compare = flags.compare;
const TIMEOUT_MS = 120_000;
const root = resolve(process.cwd());
const warden = join(root, 'bin/warden.js');

const INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",' +
  '"capabilities":{},"clientInfo":{"name":"npx-launch-bench","version":"1.0.0"}}}\n';

/** Milliseconds from spawn to the first answer to `initialize`; throws with stderr if none. */
function firstAnswer(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  return new Promise<number>((done, fail) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => finish(new Error(`no answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    let settled = false;
    // The next launch starts once this one is gone, so that its clean-up costs no round.
    const finish = (e?: Error) => {
      if (settled) return;
      settled = true;
      const ms = performance.now() - t0;
      clearTimeout(timer);
      const gone = () =>
        e
          ? fail(new Error(`${e.message}; stderr: ${err.trim().split('\n').slice(-3).join(' | ')}`))
          : done(ms);
      if (child.exitCode !== null || child.signalCode !== null) return gone();
      child.once('exit', gone);
      child.stdin.end();
      child.kill();
    };
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/"id":1,"result"|"result":.*"id":1/.test(out)) finish();
      else if (/"id":1,"error"/.test(out)) finish(new Error(out.trim().slice(0, 300)));
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('close', () => finish(new Error('exited before answering')));
    child.stdin.write(INIT);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const data = await mkdtemp(join(tmpdir(), 'warden-npx-bench-'));
try {
  const pkg = JSON.parse(
    await readFile(
      join(root, 'node_modules/@modelcontextprotocol/server-everything/package.json'),
      'utf8',
    ),
  ) as { version: string };
  const spec = `@modelcontextprotocol/server-everything@${pkg.version}`;
  const cache = join(data, 'npm-cache');
  const cwd = join(data, 'cwd');
  await Promise.all([cache, cwd].map((d) => mkdir(d, { recursive: true })));
  const reserved = await reservedRegistryAddresses();
  /** `warden connect` of one build, with a state folder of its own holding the npx server. */
  const addTo = async (label: string, bin: string, home: string) => {
    await mkdir(home, { recursive: true });
    const env = { ...process.env, WARDEN_HOME: home };
    const added = spawnSync(
      process.execPath,
      [
        bin,
        'servers',
        'add',
        'npx-everything',
        '--rw',
        cache,
        '--set-env',
        `npm_config_cache=${cache}`,
        '--net',
        'allowlist',
        '--allow',
        REGISTRY,
        ...reserved.flatMap((a) => ['--allow-address', a]),
        '--',
        'npx',
        '-y',
        spec,
      ],
      { env, encoding: 'utf8' },
    );
    if (added.status !== 0) throw new Error(`servers add failed (${label}): ${added.stderr}`);
    return {
      label,
      times: [] as number[],
      // As AI clients' configs start it: the shell front beside bin/warden.js, on this Node.
      run: () =>
        firstAnswer(
          join(dirname(bin), 'warden'),
          ['connect', 'npx-everything'],
          { ...env, WARDEN_NODE: process.execPath },
          cwd,
        ),
    };
  };
  const wardens = [await addTo('warden connect', warden, join(data, 'warden'))];
  if (compare) {
    const bin = join(resolve(compare), 'bin/warden.js');
    wardens.push(await addTo(`warden connect (${compare})`, bin, join(data, 'compare')));
  }
  const direct = () =>
    firstAnswer('npx', ['-y', spec], { ...process.env, npm_config_cache: cache }, cwd);
  console.log(
    `npx second launch: ${spec}, ${ROUNDS} rounds, warm npm cache (node ${process.version})`,
  );
  console.log(`warm-up (fills the cache): direct ${(await direct()).toFixed(0)} ms`);
  for (const w of wardens) console.log(`warm-up: ${w.label} ${(await w.run()).toFixed(0)} ms`);
  const d: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    d.push(await direct());
    for (const w of wardens) w.times.push(await w.run());
    const cells = wardens.map((w) => `${w.label} ${w.times.at(-1)!.toFixed(0)} ms`);
    console.log(
      `#${round} direct npx -y ${d.at(-1)!.toFixed(0)} ms   ${cells.join('   ')}   ` +
        `load average ${loadavg()[0]!.toFixed(2)}`,
    );
  }
  const dm = median(d);
  const over = (ms: number) => `${ms - dm >= 0 ? '+' : ''}${(ms - dm).toFixed(0)} ms`;
  console.log(
    `median: direct npx -y ${dm.toFixed(0)} ms, ` +
      wardens
        .map((w) => `${w.label} ${median(w.times).toFixed(0)} ms: ${over(median(w.times))}`)
        .join(', ') +
      ' (target ≤ +100 ms)',
  );
} finally {
  await rm(data, { recursive: true, force: true, maxRetries: 5 });
}
