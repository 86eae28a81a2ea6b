/**
 * Egress benchmark, side by side in one run: bulk download through the broker (client in the
 * real sandbox, bwrap backend with seccomp → the proxy socket on the sandbox's loopback, served
 * by the broker in this process → target) against the same client connecting directly over
 * loopback, plus a baseline: one plain relay process reading 1 MiB at a time into a reused buffer
 * (one user-space hop, as the broker is, without its policy); and connection setup latency (p50,
 * p99) of a CONNECT through the proxy against a direct TCP connect; and exchanges of small
 * flights, the shape of a TLS handshake: the target answers each line in two writes 1 ms apart,
 * which the client waits for together before it sends the next (an exchange stalls where a hop
 * holds a small write back until the first is acknowledged: Nagle's algorithm against a delayed
 * acknowledgement). The target runs in its own process.
 * Run: `node bench/run.mjs egress-bench [--mb 512] [--connects 2000] [--rounds 3] [--no-sandbox]`
 * (`--help` lists every flag).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { defaultPolicy } from '../app/policy/defaults';
import { mergeEgressEnv, startEgress } from '../main/egress/start-egress';
import { bwrapBackend } from '../main/sandbox/linux/bwrap-backend';
import { spawnPlan } from '../main/sandbox/spawn-plan';
import { benchFlags } from './bench-flags';

const flags = benchFlags(
  'egress-bench',
  'Bulk transfer, connection setup and small flights through the egress broker, against direct.',
  {
    mb: { type: 'number', fallback: 512, help: 'megabytes moved per transfer' },
    connects: { type: 'number', fallback: 2000, help: 'connections timed for setup latency' },
    rounds: { type: 'number', fallback: 3, help: 'interleaved rounds' },
    'no-sandbox': { type: 'boolean', help: 'run the client outside bubblewrap' },
    prof: { type: 'string', arg: 'DIR', help: "CPU profiles of the sandbox's init, into DIR" },
  },
);
const MB = flags.mb;
const CONNECTS = flags.connects;
const ROUNDS = flags.rounds;
const sandbox = !flags['no-sandbox'] && existsSync('/usr/bin/bwrap');
// The bundle runs from a cache dir, so the sources are found from the working directory.
const root = resolve(process.cwd());

const targetScript = `
const net = require('net');
const chunk = Buffer.alloc(256 * 1024, 120);
const send = (s, left, head) => {
  if (head) s.write(head);
  const pump = () => { while (left > 0) { const n = Math.min(left, chunk.length); left -= n; if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return s.once('drain', pump); } s.end(); };
  pump();
};
// "N\\n": send N bytes. "UP N\\n": take N bytes, answer "done". "GET /N HTTP/1.1": an HTTP
// response of N bytes. "POST /up HTTP/1.1" with Content-Length N: take N bytes, answer 200.
// "FLIGHTS\\n", then a line at a time: each answered in two writes 1 ms apart.
const flight = (s) => { s.write('a'.repeat(300)); setTimeout(() => s.write('b'.repeat(1200) + '\\n'), 1); };
const srv = net.createServer((s) => {
  let head = Buffer.alloc(0);
  const onData = (d) => {
    head = Buffer.concat([head, d]);
    const text = head.toString('latin1');
    let take = 0, reply = '', rest;
    if (/^(GET|POST) /.test(text)) {
      const end = text.indexOf('\\r\\n\\r\\n');
      if (end < 0) return;
      rest = head.subarray(end + 4);
      if (text.startsWith('GET')) { s.off('data', onData); return send(s, Number(/^GET \\/(\\d+)/.exec(text)[1]), 'HTTP/1.1 200 OK\\r\\nContent-Length: ' + /^GET \\/(\\d+)/.exec(text)[1] + '\\r\\nConnection: close\\r\\n\\r\\n'); }
      take = Number(/content-length: *(\\d+)/i.exec(text)[1]);
      reply = 'HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n';
    } else {
      const nl = text.indexOf('\\n');
      if (nl < 0) return;
      rest = head.subarray(nl + 1);
      if (text.startsWith('FLIGHTS')) {
        s.off('data', onData);
        // As a TLS server does: Nagle's algorithm off, each write sent as it is made.
        s.setNoDelay(true);
        flight(s);
        return s.on('data', (d) => { for (const c of d) if (c === 10) flight(s); });
      }
      const m = /^UP (\\d+)/.exec(text);
      if (!m) { s.off('data', onData); return send(s, Number(text.slice(0, nl).trim())); }
      take = Number(m[1]);
      reply = 'done\\n';
    }
    s.off('data', onData);
    let got = rest.length;
    const done = () => { if (got >= take) { s.removeAllListeners('data'); s.end(reply); } };
    s.on('data', (c) => { got += c.length; done(); });
    done();
  };
  s.on('data', onData);
  s.on('error', () => {});
});
srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));`;

const clientScript = `
const net = require('net');
const [mode, target, bytes, connects, kind = 'down'] = process.argv.slice(1);
const [host, port] = target.split(':');
function open(n = 0) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    if (mode === 'direct' || (kind.startsWith('http') && n > 0)) {
      const s = net.connect(mode === 'direct' ? Number(port) : 8877, '127.0.0.1', () => resolve([s, Number(process.hrtime.bigint() - t0) / 1e6]));
      s.on('error', reject);
      return;
    }
    const s = net.connect(8877, '127.0.0.1', () => s.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'));
    s.once('data', (d) => {
      if (!String(d).startsWith('HTTP/1.1 200')) return reject(new Error(String(d)));
      resolve([s, Number(process.hrtime.bigint() - t0) / 1e6]);
    });
    s.on('error', reject);
  });
}
// Machine-wide CPU time from /proc/stat (all processes: client, relays, target, kernel), in ticks.
function cpuTicks() {
  const f = require('fs').readFileSync('/proc/stat', 'utf8').split('\\n')[0].trim().split(/ +/).slice(1, 8).map(Number);
  return { busy: f[0] + f[1] + f[2] + f[5] + f[6], all: f.reduce((a, b) => a + b, 0) };
}
(async () => {
  const setup = [];
  for (let i = 0; i < Number(connects); i++) { const [s, ms] = await open(); setup.push(ms); s.destroy(); }
  const [s] = await open(1);
  const t0 = process.hrtime.bigint();
  const c0 = cpuTicks();
  const n = Number(bytes);
  let got = 0;
  const finish = () => {
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const c1 = cpuTicks();
    setup.sort((a, b) => a - b);
    const q = (p) => setup[Math.min(setup.length - 1, Math.floor(p * setup.length))] ?? 0;
    const busy = (c1.busy - c0.busy) / (c1.all - c0.all);
    console.log(JSON.stringify({ got, secs, p50: q(0.5), p99: q(0.99), busy }));
    s.destroy();
  };
  // Uploads: N bytes written with backpressure; done when the target says it has them all.
  const upload = (head) => {
    const chunk = Buffer.alloc(256 * 1024, 121);
    let left = n;
    s.write(head);
    const pump = () => { while (left > 0) { const k = Math.min(left, chunk.length); left -= k; if (!s.write(k === chunk.length ? chunk : chunk.subarray(0, k))) return s.once('drain', pump); } };
    pump();
    let answer = '';
    s.on('data', (d) => { answer += d; if (/done|200 OK/.test(answer)) { got = n; finish(); } });
  };
  const hostPort = mode === 'direct' ? '127.0.0.1:' + port : target;
  const url = mode === 'direct' ? '' : 'http://' + hostPort;
  if (kind === 'flights') {
    // Each exchange's time, from the line sent to the whole flight read.
    let t = process.hrtime.bigint();
    let left = 300;
    s.on('data', (d) => {
      if (d[d.length - 1] !== 10) return;
      setup.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (--left === 0) return finish();
      t = process.hrtime.bigint();
      s.write('next\\n');
    });
    s.write('FLIGHTS\\n');
  } else if (kind === 'up') upload('UP ' + n + '\\n');
  else if (kind === 'http-post') upload('POST ' + url + '/up HTTP/1.1\\r\\nHost: ' + hostPort + '\\r\\nContent-Length: ' + n + '\\r\\n\\r\\n');
  else {
    // Downloads: the body is counted (an HTTP response's head is not).
    let head = kind === 'http-get' ? Buffer.alloc(0) : undefined;
    s.on('data', (d) => {
      if (head) {
        head = Buffer.concat([head, d]);
        const end = head.indexOf('\\r\\n\\r\\n');
        if (end < 0) return;
        d = head.subarray(end + 4);
        head = undefined;
      }
      got += d.length;
      if (got >= n) finish();
    });
    s.write(kind === 'http-get' ? 'GET ' + url + '/' + n + ' HTTP/1.1\\r\\nHost: ' + hostPort + '\\r\\n\\r\\n' : bytes + '\\n');
  }
})().catch((e) => { console.error(String(e)); process.exit(1); });`;

// One hop, as cheap as Node makes it: 1 MiB reads into one reused buffer, reading paused while a
// write is queued (so the buffer is never overwritten before the kernel has taken it).
const singleRelayScript = `
const net = require('net');
const to = Number(process.argv[1]);
const srv = net.createServer({ pauseOnConnect: true }, (c) => {
  const u = net.connect({ port: to, host: '127.0.0.1', onread: { buffer: Buffer.allocUnsafe(1 << 20), callback: (n, buf) => {
    c.write(buf.subarray(0, n));
    if (c.writableLength > 0) { u.pause(); c.once('drain', () => u.resume()); }
  } } });
  c.on('data', (d) => u.write(d));
  c.resume();
  c.on('end', () => u.end()); u.on('end', () => c.end());
  c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
});
srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));`;

/**
 * What a transfer moves: a CONNECT download or upload, an absolute-form GET or POST; or, through
 * a CONNECT, 300 exchanges of small flights (timed one by one, as the setups are).
 */
type Kind = 'down' | 'up' | 'http-get' | 'http-post' | 'flights';
const EXTRA_KINDS: [Kind, string][] = [
  ['up', 'CONNECT upload'],
  ['http-get', 'absolute-form GET'],
  ['http-post', 'absolute-form POST (upload)'],
];

function firstLine(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((r) => child.stdout!.once('data', (d: Buffer) => r(Number(String(d).trim()))));
}

interface ClientResult {
  got: number;
  secs: number;
  p50: number;
  p99: number;
  /** Share of all CPUs' time that was busy during the transfer (whole machine). */
  busy: number;
}

function collect(child: ReturnType<typeof spawn>): Promise<string> {
  let out = '';
  let errText = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
  // Not 'close': Node never emits it for a child whose IPC channel the parent closed.
  const drained = Promise.all([child.stdout!, child.stderr!].map((s) => once(s, 'close')));
  return new Promise((res, rej) =>
    child.once(
      'exit',
      (code) =>
        void drained.then(() =>
          code === 0 ? res(out) : rej(new Error(`exit ${code}: ${errText}`)),
        ),
    ),
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'warden-egress-bench-'));
  for (const name of ['init', 'fetch-preload']) {
    await build({
      entryPoints: [join(root, 'main/sandbox-init', `${name}.ts`)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: join(dir, `${name}.cjs`),
      logLevel: 'warning',
    });
  }
  const target = spawn(process.execPath, ['-e', targetScript], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((r) =>
    target.stdout.once('data', (d: Buffer) => r(Number(String(d).trim()))),
  );
  const relays: ReturnType<typeof spawn>[] = [];
  const bytes = MB * 1024 * 1024;
  const dest = `bench.test:${port}`;
  const clientArgs = ['-e', clientScript, '', dest, String(bytes), String(CONNECTS)];
  const runDirect = async (via = port, kind: Kind = 'down'): Promise<ClientResult> => {
    const args = [
      ...clientArgs.map((a, i) =>
        i === 2 ? 'direct' : i === 3 ? `bench.test:${via}` : i === 5 && kind !== 'down' ? '0' : a,
      ),
      kind,
    ];
    return JSON.parse(
      await collect(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })),
    ) as ClientResult;
  };
  const runBrokered = async (
    kind: Kind = 'down',
  ): Promise<ClientResult & { brokerCpu: number }> => {
    const network = {
      ...defaultPolicy().network,
      mode: 'allowlist' as const,
      allow: ['bench.test'],
      allowAddresses: ['127.0.0.1'],
    };
    const started = startEgress({
      network,
      server: 'bench',
      instanceId: 'bench#1',
      runtime: {
        nodePath: process.execPath,
        initScript: join(dir, 'init.cjs'),
        preloadScript: join(dir, 'fetch-preload.cjs'),
        isElectron: false,
      },
      resolve: [{ name: 'bench.test', addresses: ['127.0.0.1'] }],
      onDecision: () => undefined,
      proxyPort: 8877,
    });
    if (!started.ok) throw new Error(started.error.message);
    const egress = started.value;
    // --prof DIR: CPU profiles of the init (run this bundle with --cpu-prof for the broker's).
    const prof = flags.prof ? ['--cpu-prof', '--cpu-prof-dir', flags.prof] : [];
    const [nodePath, ...initArgs] = egress.context.wrapper!.argv;
    const inner = [
      nodePath!,
      ...prof,
      ...initArgs,
      '--',
      process.execPath,
      ...clientArgs.map((a, i) => (i === 2 ? 'proxy' : i === 5 && kind !== 'down' ? '0' : a)),
      kind,
    ];
    const cpu = process.cpuUsage();
    let child: ChildProcess;
    if (sandbox) {
      // The real Linux backend (bwrap + seccomp), as the supervisor launches a server.
      const policy = defaultPolicy();
      policy.network = network;
      policy.filesystem.roots = [{ path: dir, access: 'read' }];
      const [command, ...args] = inner.slice(inner.indexOf('--') + 1);
      const compiled = await bwrapBackend().compile(
        policy,
        { command: command!, args },
        {
          instanceDir: dir,
          hostEnv: process.env,
          secrets: {},
          wrapper: {
            argv: inner.slice(0, inner.indexOf('--')),
            readOnlyBinds: egress.context.wrapper!.readOnlyBinds,
          },
          extraFds: 1,
        },
      );
      if (!compiled.ok) throw new Error(`sandbox unavailable: ${compiled.error.message}`);
      mergeEgressEnv(compiled.value.env, egress.env);
      const spawned = await spawnPlan(compiled.value, {
        stdio: ['ignore', 'pipe', 'pipe'],
        extraFds: ['ipc'],
      });
      child = spawned.child;
    } else {
      const env = { ...process.env } as Record<string, string>;
      mergeEgressEnv(env, egress.env);
      child = spawn(inner[0]!, inner.slice(1), { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env });
    }
    egress.attach(child);
    const r = JSON.parse(await collect(child)) as ClientResult;
    const used = process.cpuUsage(cpu);
    await egress.close();
    return { ...r, brokerCpu: (used.user + used.system) / 1e6 };
  };
  try {
    if (!sandbox)
      console.log('note: --no-sandbox or no bwrap: the proxy port 8877 must be free on the host');
    const mbps = (r: ClientResult): number => r.got / 1024 / 1024 / r.secs;
    const cores = cpus().length;
    // CPU time the whole machine spent per GiB moved: what each path costs, whoever pays it.
    const perGib = (r: ClientResult): number => (r.busy * cores * r.secs) / (r.got / 2 ** 30);
    const row = (name: string, r: ClientResult): string =>
      `${name.padEnd(30)} ${mbps(r).toFixed(0).padStart(6)} MB/s   ${(r.busy * cores).toFixed(2)} of ${cores} CPUs busy, ${perGib(r).toFixed(2)} CPU-s/GiB   setup p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms`;
    const median = (xs: number[]): number =>
      [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `egress benchmark: ${MB} MB download and ${CONNECTS} sequential connection setups per run, ${ROUNDS} rounds alternating (node ${process.version}, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
    // Baseline: one hop, as the broker is, with no policy, protocol or sandbox.
    const single = spawn(process.execPath, ['-e', singleRelayScript, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const s1 = await firstLine(single);
    relays.push(single);
    const directs: ClientResult[] = [];
    const singles: ClientResult[] = [];
    const brokereds: (ClientResult & { brokerCpu: number })[] = [];
    const extras = new Map<Kind, (ClientResult & { brokerCpu: number })[]>(
      EXTRA_KINDS.map(([k]) => [k, []]),
    );
    // The same transfer without the broker: what the client and target manage on their own.
    const directExtras = new Map<Kind, ClientResult[]>(EXTRA_KINDS.map(([k]) => [k, []]));
    const flights: { direct: ClientResult[]; broker: ClientResult[] } = { direct: [], broker: [] };
    const flightRow = (name: string, r: ClientResult): string =>
      `${name.padEnd(30)} exchange p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms`;
    for (let round = 1; round <= ROUNDS; round++) {
      const d = await runDirect();
      const one = await runDirect(s1);
      const b = await runBrokered();
      directs.push(d);
      singles.push(one);
      brokereds.push(b);
      console.log(row(`#${round} direct loopback`, d));
      console.log(
        row(`#${round} one relay, 1 MiB reads`, one).replace(
          / {3}setup.*/,
          '   (throughput baseline)',
        ),
      );
      console.log(
        `${row(`#${round} broker${sandbox ? ' (client in sandbox)' : ''}`, b)}   broker CPU ${b.brokerCpu.toFixed(2)} s`,
      );
      for (const [kind, label] of EXTRA_KINDS) {
        const dx = await runDirect(port, kind);
        directExtras.get(kind)!.push(dx);
        console.log(row(`#${round} direct ${label}`, dx).replace(/ {3}setup.*/, ''));
        const x = await runBrokered(kind);
        extras.get(kind)!.push(x);
        console.log(
          `${row(`#${round} broker ${label}`, x).replace(/ {3}setup.*/, '')}   broker CPU ${x.brokerCpu.toFixed(2)} s`,
        );
      }
      const fd = await runDirect(port, 'flights');
      const fb = await runBrokered('flights');
      flights.direct.push(fd);
      flights.broker.push(fb);
      console.log(flightRow(`#${round} direct small flights`, fd));
      console.log(flightRow(`#${round} broker small flights`, fb));
    }
    const dM = median(directs.map(mbps));
    const bM = median(brokereds.map(mbps));
    const sM = median(singles.map(mbps));
    const pct = (x: number): string => `${((x / dM) * 100).toFixed(1)} %`;
    console.log(
      `median: direct ${dM.toFixed(0)} MB/s, broker ${bM.toFixed(0)} MB/s = ${pct(bM)} of direct (target ≥ 80 %); one plain relay with 1 MiB reads ${sM.toFixed(0)} MB/s = ${pct(sM)}`,
    );
    for (const [kind, label] of EXTRA_KINDS) {
      const xM = median(extras.get(kind)!.map(mbps));
      const dxM = median(directExtras.get(kind)!.map(mbps));
      // The broker's own CPU per GiB: what the path costs Warden, steadier than wall-clock
      // ratios on a loaded machine.
      const cpuM = median(extras.get(kind)!.map((x) => x.brokerCpu / (x.got / 2 ** 30)));
      console.log(
        `median: broker ${label} ${xM.toFixed(0)} MB/s = ${((xM / bM) * 100).toFixed(1)} % of the broker's CONNECT download (target ≥ 80 %); direct ${label} ${dxM.toFixed(0)} MB/s, broker = ${((xM / dxM) * 100).toFixed(1)} % of it; broker CPU ${cpuM.toFixed(2)} s/GiB`,
      );
    }
    // With every CPU busy, no relay moves more than (CPUs / its CPU cost per GiB).
    const dCost = median(directs.map(perGib));
    const bCost = median(brokereds.map(perGib));
    const bound = (cores / bCost) * 1024;
    console.log(
      `median CPU cost: direct ${dCost.toFixed(2)} CPU-s/GiB, broker ${bCost.toFixed(2)} CPU-s/GiB (${(bCost / dCost).toFixed(2)}×: each byte crosses TCP twice); at that cost ${cores} CPUs move at most ${bound.toFixed(0)} MB/s = ${pct(bound)} of direct`,
    );
    console.log(
      `median setup: direct p50 ${median(directs.map((r) => r.p50)).toFixed(3)} ms; broker p50 ${median(brokereds.map((r) => r.p50)).toFixed(3)} ms, p99 ${median(brokereds.map((r) => r.p99)).toFixed(3)} ms (target p50 < 2 ms)`,
    );
    const fq = (rs: ClientResult[], k: 'p50' | 'p99'): string =>
      median(rs.map((r) => r[k])).toFixed(3);
    console.log(
      `median small flights (two writes 1 ms apart, answered together, as in a TLS handshake): direct p50 ${fq(flights.direct, 'p50')} ms, p99 ${fq(flights.direct, 'p99')} ms; broker p50 ${fq(flights.broker, 'p50')} ms, p99 ${fq(flights.broker, 'p99')} ms`,
    );
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${cpus().length} CPUs`,
    );
  } finally {
    for (const r of relays) r.kill();
    target.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
