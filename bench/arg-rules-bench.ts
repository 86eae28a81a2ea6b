/**
 * What argument rules and credential scanning add to a `tools/call` through the gateway. Two
 * servers run the same echo tool behind `warden connect`, one as the gateway was before (no
 * rules, `credentials: off`) and one with rules on the argument and credential scanning on
 * (`redact`, with a server secret); calls alternate between them so that both see the same load.
 * Each call sends a 4 KB message and gets a 4 KB result back. Then, in process, the cost of each
 * check on its own (including a `within-roots` path rule and a `match=` rule on a 4 KB value).
 *
 *   node bench/run.mjs arg-rules-bench [--calls N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultPolicy } from '../app/policy/defaults';
import type { Policy } from '../app/policy/policy-schema';
import { createCore } from '../main/core/core';
import { standaloneGuards } from '../test/helpers/call-guards';
import { benchFlags } from './bench-flags';

const { calls: CALLS } = benchFlags(
  'arg-rules-bench',
  'What argument rules and credential scanning add to a tools/call through warden connect.',
  { calls: { type: 'number', fallback: 2000, help: 'calls, alternating between the two servers' } },
);
const root = resolve(process.cwd());
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const SECRET = { name: 'SERVICE_TOKEN', value: 'svc-3f9a7c1e-bench-secret' };
const MESSAGE = 'The quick brown fox jumps over the lazy dog. '.repeat(92).slice(0, 4096);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const p50 = (xs: number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const p99 = (xs: number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.99,
  );

function guardedPolicy(base: Policy): Policy {
  const policy = structuredClone(base);
  policy.tools.argRules = [
    { tool: 'echo', arg: 'message', rule: 'max-length=8192' },
    { tool: '*', arg: 'path', rule: 'within-roots' },
  ];
  policy.tools.credentials = 'redact';
  policy.env.set[SECRET.name] = { kind: 'plain', value: SECRET.value };
  return policy;
}

async function connect(home: string, name: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'bin/warden.js'), 'connect', name],
      env: { ...process.env, WARDEN_HOME: home },
      stderr: 'ignore',
    }),
  );
  return client;
}

async function throughGateway(home: string) {
  const plain = await connect(home, 'plain');
  const guarded = await connect(home, 'guarded');
  const call = (c: Client) => c.callTool({ name: 'echo', arguments: { message: MESSAGE } });
  const sample = await call(guarded);
  if (JSON.stringify(sample).length < 4096) throw new Error('the echo result is not 4 KB');
  for (let i = 0; i < 200; i++) await Promise.all([call(plain), call(guarded)]);
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    // Alternate which goes first, so that neither always runs on a warmer process.
    for (const [client, into] of i % 2 === 0
      ? ([
          [plain, before],
          [guarded, after],
        ] as const)
      : ([
          [guarded, after],
          [plain, before],
        ] as const)) {
      const t = performance.now();
      await call(client);
      into.push(performance.now() - t);
    }
  }
  await plain.close();
  await guarded.close();
  return { before, after };
}

function inProcess(base: Policy, dir: string) {
  const policy = guardedPolicy(base);
  policy.filesystem.roots = [{ path: dir, access: 'read' }];
  const { guards } = standaloneGuards(policy, [SECRET]);
  const result = { content: [{ type: 'text', text: `Echo: ${MESSAGE}` }] };
  const time = async (label: string, fn: () => unknown) => {
    for (let i = 0; i < 500; i++) await fn();
    const xs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await fn();
      xs.push(performance.now() - t);
    }
    console.log(`  ${label.padEnd(58)} p50 ${(p50(xs) * 1000).toFixed(1)} µs`);
  };
  return async () => {
    await time('credential scan of a 4 KB result (no hit)', () =>
      guards.checkResult('echo', result, 1),
    );
    await time('rules + secret scan of a 4 KB argument (max-length)', () =>
      guards.checkArgs('echo', { message: MESSAGE }, 1),
    );
    await time('within-roots on a path argument (one async realpath)', () =>
      guards.checkArgs('read', { path: join(dir, 'notes.txt') }, 1),
    );
    policy.tools.argRules = [{ tool: 'echo', arg: 'message', rule: 'match=[ -~]*' }];
    await time('match=[ -~]* on a 4 KB argument (RE2, linear time)', () =>
      guards.checkArgs('echo', { message: MESSAGE }, 1),
    );
  };
}

const home = await mkdtemp(join(tmpdir(), 'warden-bench-'));
try {
  const core = await createCore({ wardenHome: home });
  const sandboxed = core.hostReport().backend.available;
  const base: Policy = {
    ...defaultPolicy(),
    isolation: sandboxed ? 'sandbox' : 'off',
    filesystem: { roots: [{ path: join(root, 'node_modules'), access: 'read' }] },
  };
  const plainPolicy = structuredClone(base);
  plainPolicy.tools.credentials = 'off';
  const launch = { command: process.execPath, args: [everything, 'stdio'] };
  await core.config.addServer({ name: 'plain', launch, policy: plainPolicy, acknowledged: true });
  await core.config.addServer({
    name: 'guarded',
    launch,
    policy: guardedPolicy(base),
    acknowledged: true,
  });
  await core.close();
  console.log(
    `argument rules + credential scanning: ${CALLS} alternating echo calls per server, 4 KB message and result; servers ${sandboxed ? 'sandboxed' : 'NOT sandboxed (no backend on this host)'}`,
  );
  const { before, after } = await throughGateway(home);
  const show = (label: string, xs: number[]) =>
    console.log(`${label.padEnd(44)} p50 ${p50(xs).toFixed(3)} ms   p99 ${p99(xs).toFixed(3)} ms`);
  show('gateway, no rules, credentials off', before);
  show('gateway, rules + credential scan (redact)', after);
  console.log(
    `added latency: p50 ${(p50(after) - p50(before)).toFixed(3)} ms (target ≤ 0.1 ms), p99 ${(p99(after) - p99(before)).toFixed(3)} ms`,
  );
  // The same calls in five consecutive slices: how much the difference moves with the load.
  const size = Math.floor(CALLS / 5);
  const slices = [0, 1, 2, 3, 4].map(
    (k) => p50(after.slice(k * size, (k + 1) * size)) - p50(before.slice(k * size, (k + 1) * size)),
  );
  console.log(
    `p50 difference in five slices: ${slices.map((d) => d.toFixed(3)).join(', ')} ms; median ${p50(slices).toFixed(3)} ms`,
  );
  console.log('in process, per call:');
  await inProcess(base, home)();
} finally {
  await rm(home, { recursive: true, force: true });
}
