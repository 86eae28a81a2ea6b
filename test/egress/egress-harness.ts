/**
 * Test harness for egress: bundles the sandbox init and the fetch preload (with the compiled init
 * beside them where the build made it), starts HTTP and HTTPS servers on the host, and runs a
 * client either under the init as a plain child (fd 3 = Node's IPC channel) or inside the real
 * Linux sandbox (the bwrap backend's compile + spawnPlan, seccomp included). Runs use the
 * compiled init when there is one, as Warden does; `init: 'script'` takes the Node one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { defaultPolicy } from '../../app/policy/defaults';
import type { NetworkPolicy } from '../../app/policy/policy-schema';
import type { GrantInbox } from '../../main/egress/grant-inbox';
import type { Lookup, ResolveOverride } from '../../main/egress/resolve-destination';
import { INIT_PROGRAM } from '../../main/egress/egress-runtime';
import {
  type Egress,
  type EgressRuntime,
  mergeEgressEnv,
  startEgress,
} from '../../main/egress/start-egress';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { spawnPlan } from '../../main/sandbox/spawn-plan';
import { sandboxRequired, sandboxStatus } from '../sandbox/harness';
import { testCertificate } from '../helpers/test-certificate';

const root = resolve(import.meta.dirname, '../..');
let bundled: Promise<{ dir: string; runtime: EgressRuntime }> | undefined;

/** The compiled init as `npm run build` makes it on Linux with a C compiler. */
export const builtInitProgram = join(root, 'out', 'sandbox-init', INIT_PROGRAM);

/**
 * Why the compiled init cannot be tested here, or undefined when it can. CI builds it (the build
 * needs a C compiler, which CI installs), so there its absence is a failure, not a skip.
 */
export const noInitProgram =
  process.platform !== 'linux'
    ? 'the compiled init is built on Linux only'
    : existsSync(builtInitProgram) || process.env.CI
      ? undefined
      : 'out/sandbox-init/warden-init was not built (no C compiler found by npm run build)';

/**
 * Bundles init.ts and fetch-preload.ts once per test file into a temp dir, with a copy of the
 * compiled init where there is one.
 */
export function bundleEgress(): Promise<{ dir: string; runtime: EgressRuntime }> {
  bundled ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'warden-egress-'));
    const out = join(dir, 'sandbox-init');
    for (const name of ['init', 'fetch-preload']) {
      await build({
        entryPoints: [join(root, 'main/sandbox-init', `${name}.ts`)],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        outfile: join(out, `${name}.cjs`),
        logLevel: 'silent',
      });
    }
    const program = noInitProgram ? undefined : join(out, INIT_PROGRAM);
    if (program) {
      if (!existsSync(builtInitProgram)) {
        throw new Error(`${builtInitProgram} was not built: run npm run build with a C compiler`);
      }
      await copyFile(builtInitProgram, program);
    }
    const runtime: EgressRuntime = {
      nodePath: process.execPath,
      initScript: join(out, 'init.cjs'),
      ...(program ? { initProgram: program } : {}),
      preloadScript: join(out, 'fetch-preload.cjs'),
      isElectron: false,
    };
    return { dir, runtime };
  })();
  return bundled;
}

/**
 * Chunk `index` (64 KiB) of the test servers' download blobs: every KiB starts with its own
 * position, so a relay that reorders, repeats or overwrites any KiB changes the hash.
 */
export function blobChunk(index: number): Buffer {
  const chunk = Buffer.alloc(65536, 'warden-egress ');
  for (let k = 0; k < 64; k++) chunk.writeUInt32BE(index * 64 + k, k * 1024);
  return chunk;
}

export interface HostServers {
  httpPort: number;
  httpsPort: number;
  caFile: string;
  close(): Promise<void>;
}

/** An HTTP and an HTTPS server on 127.0.0.1 that answer `hello from <path>`. */
export async function startHostServers(dir: string): Promise<HostServers> {
  const { key, cert } = await testCertificate(dir);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const blob = /^\/blob\/(\d+)$/.exec(req.url ?? '');
    if (req.method === 'POST') {
      // Answers the SHA-256 of the body, to check uploads byte for byte.
      const hash = createHash('sha256');
      req.on('data', (d: Buffer) => hash.update(d));
      req.on('end', () => res.end(hash.digest('hex')));
    } else if (blob) {
      // Streams N bytes of blobChunk()s, with backpressure, to check downloads.
      let left = Number(blob[1]);
      let index = 0;
      const pump = (): void => {
        while (left > 0) {
          const chunk = blobChunk(index++);
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else {
      res.end(`hello from ${req.url ?? ''}`);
    }
  };
  const h1 = http.createServer(handler);
  const h2 = https.createServer({ key: await readFile(key), cert: await readFile(cert) }, handler);
  await Promise.all([h1, h2].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  return {
    httpPort: (h1.address() as net.AddressInfo).port,
    httpsPort: (h2.address() as net.AddressInfo).port,
    caFile: cert,
    close: async () => {
      for (const s of [h1, h2]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

/**
 * The host servers of a suite: started (with the egress scripts bundled) before its first test and
 * closed after its last. The object is filled in when they start.
 */
export function hostServersAll(): HostServers {
  const servers = { close: () => Promise.resolve() } as HostServers;
  beforeAll(async () => {
    Object.assign(servers, await startHostServers((await bundleEgress()).dir));
  });
  afterAll(() => servers.close());
  return servers;
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

export interface RunOptions {
  network: Partial<NetworkPolicy>;
  command: string[];
  /** Run in bwrap with a fresh network namespace (default) or as a plain child. */
  sandbox?: boolean;
  resolve?: ResolveOverride[];
  grants?: GrantInbox;
  instanceId?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** The host resolver to use instead of the system's. */
  lookup?: Lookup;
  /** Certificates Warden trusts when it opens TLS itself (absolute-form https:// requests). */
  extraCa?: string[];
  /** Use this egress (e.g. from prepareExecEgress) instead of one built from `network`. */
  egress?: Egress;
  /** Also called with each decision as it happens (e.g. to feed an audit store live). */
  onDecision?: (e: EgressDecisionEvent) => void;
  /** Which init runs the command: the compiled one where built (default), or the Node script. */
  init?: 'program' | 'script';
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  events: EgressDecisionEvent[];
  /** What the egress reported it could not do (onProblem). */
  problems: string[];
}

const sandbox = await sandboxStatus();

/**
 * describe() for suites that need the real sandbox: skipped with the reason where this host
 * cannot sandbox, and a failure instead under WARDEN_REQUIRE_SANDBOX=1 (CI).
 */
export function describeSandboxed(name: string, fn: () => void): void {
  describe(name, () => {
    it.skipIf(sandbox.usable || !sandboxRequired)(
      'needs the sandbox (WARDEN_REQUIRE_SANDBOX=1)',
      () => {
        expect.fail(`the sandbox cannot run here: ${sandbox.reason}`);
      },
    );
    describe.skipIf(!sandbox.usable)('in the sandbox', fn);
  });
}

/**
 * The exit code once the process has exited and its output has been read. Not 'close': Node
 * never emits it for a child whose IPC channel the parent closed (as Warden does at hand-over).
 */
export async function exitedAndDrained(child: ChildProcess): Promise<number | null> {
  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  const [code] = await Promise.all([
    new Promise<number | null>((r) => child.once('exit', (c) => r(c))),
    ...streams.map((s) => new Promise((r) => s.once('close', r))),
  ]);
  return code;
}

/** Runs `command` under the egress init and returns its output and the broker's audit events. */
export async function runWithEgress(o: RunOptions): Promise<RunResult> {
  const bundle = await bundleEgress();
  const { dir } = bundle;
  const { initProgram, ...script } = bundle.runtime;
  const runtime = o.init === 'script' ? script : bundle.runtime;
  if (o.init === 'program' && !initProgram) throw new Error(noInitProgram);
  const sandbox = o.sandbox ?? true;
  const network = { ...defaultPolicy().network, ...o.network };
  const events: EgressDecisionEvent[] = [];
  const problems: string[] = [];
  const port = sandbox ? 8877 : await freePort();
  const started = startEgress({
    network,
    server: 'test-server',
    instanceId: o.instanceId ?? 'inst-1',
    runtime,
    onDecision: (e) => {
      events.push(e);
      o.onDecision?.(e);
    },
    onProblem: (m) => problems.push(m),
    proxyPort: port,
    ...(o.grants ? { grants: o.grants } : {}),
    ...(o.resolve ? { resolve: o.resolve } : {}),
    ...(o.lookup ? { lookup: o.lookup } : {}),
    ...(o.extraCa ? { extraCa: o.extraCa } : {}),
  });
  if (!started.ok) throw new Error(started.error.message);
  const egress = o.egress ?? started.value;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/tmp',
    ...o.env,
  };
  mergeEgressEnv(env, egress.env);
  let child: ChildProcess;
  if (sandbox) {
    // The real Linux backend (bwrap + seccomp), exactly as the supervisor launches a server.
    const policy = defaultPolicy();
    policy.network = network;
    policy.filesystem.roots = [{ path: dir, access: 'read' }];
    const [command, ...args] = o.command;
    const compiled = await bwrapBackend().compile(
      policy,
      { command: command!, args },
      {
        instanceDir: dir,
        hostEnv: process.env,
        secrets: {},
        ...(egress.context.wrapper ? { wrapper: egress.context.wrapper } : {}),
        extraFds: egress.context.extraFds,
      },
    );
    if (!compiled.ok) throw new Error(`sandbox unavailable: ${compiled.error.message}`);
    const plan = compiled.value;
    Object.assign(plan.env, o.env);
    mergeEgressEnv(plan.env, egress.env);
    const spawned = await spawnPlan(plan, {
      stdio: ['ignore', 'pipe', 'pipe'],
      extraFds: egress.context.extraFds ? ['ipc'] : [],
    });
    child = spawned.child;
  } else {
    const inner = egress.context.wrapper
      ? [...egress.context.wrapper.argv, '--', ...o.command]
      : o.command;
    child = spawn(inner[0]!, inner.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe', egress.context.extraFds ? 'ipc' : 'ignore'],
      env,
    });
  }
  if (egress.context.extraFds) egress.attach(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000);
  const code = await exitedAndDrained(child);
  clearTimeout(timer);
  await egress.close();
  return { code, stdout, stderr, events, problems };
}

/** Test names pinned to the host's loopback (`--resolve`), shared by the egress suites. */
export const pin = [
  { name: 'api.test', addresses: ['127.0.0.1'] },
  { name: 'other.test', addresses: ['127.0.0.1'] },
  { name: 'loop.test', addresses: ['127.0.0.1'] },
];

/** An allowlist with one name and one wildcard, loopback allowed explicitly for the test hosts. */
export const allowApi = {
  mode: 'allowlist' as const,
  allow: ['api.test', '*.apps.test'],
  allowAddresses: ['127.0.0.1'],
};
