/**
 * Audit volume under a refused-CONNECT flood: a client process opens CONNECTs that the allowlist
 * refuses, from 4 parallel loops, for `--seconds` (default 10), against one instance's egress
 * proxy and broker (the same code the sandbox's proxy socket is served by, here on a host
 * loopback port), and every decision goes into an audit store. Runs twice in one process: without
 * the flood guard (every attempt one row, as before) and with the core's guard. Prints attempts,
 * rows and bytes the log grew by, per run and as a ratio. Two floods: one destination, and a new
 * destination per attempt (which coalescing cannot merge, so the rate budget must hold it).
 * Run: `node bench/run.mjs audit-flood-bench [--seconds N]`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPolicy } from '../app/policy/defaults';
import { CORE_AUDIT_FLOOD_GUARD } from '../main/audit/audit-flood-guard';
import { openAuditStore } from '../main/audit/audit-store';
import { networkDecisionAudit } from '../main/egress/egress-audit';
import { instanceProxy } from '../main/egress/start-egress';
import { connectFloodScript } from '../test/egress/connect-flood';
import { benchFlags } from './bench-flags';

const { seconds } = benchFlags(
  'audit-flood-bench',
  'Audit rows and bytes written under a flood of refused CONNECTs.',
  { seconds: { type: 'number', fallback: 10, help: 'how long the flood lasts' } },
);

interface Run {
  attempts: number;
  decisions: number;
  rows: number;
  bytes: number;
}

async function flood(dir: string, name: string, guarded: boolean, distinct: boolean): Promise<Run> {
  const path = join(dir, `${name}.db`);
  const opened = openAuditStore({ path, ...(guarded ? CORE_AUDIT_FLOOD_GUARD : {}) });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  await store.flush();
  const before = (await stat(path)).size;
  let decisions = 0;
  const network = { ...defaultPolicy().network, mode: 'allowlist' as const, allow: ['api.test'] };
  const made = instanceProxy({
    network,
    server: 'hostile',
    instanceId: 'hostile#1',
    runtime: { nodePath: process.execPath, initScript: '', preloadScript: '', isElectron: false },
    onDecision: (e) => {
      decisions += 1;
      store.append(networkDecisionAudit(e));
    },
  });
  if (!made.ok || !made.value) throw new Error('no proxy');
  const { proxy, close } = made.value;
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as net.AddressInfo).port;
  const child = spawn(process.execPath, ['-e', connectFloodScript(port, seconds, distinct)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => child.once('exit', r));
  await close();
  await store.close();
  const after = (await stat(path)).size;
  const reopened = openAuditStore({ path, readonly: true });
  if (!reopened.ok) throw new Error(reopened.error.message);
  const rows = (await reopened.value.query({ limit: 1 })).rows[0]?.id ?? 0;
  await reopened.value.close();
  return { attempts: Number(out.trim().split(' ')[0]), decisions, rows, bytes: after - before };
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
const mb = (b: number) => (b >= 1024 * 1024 ? `${fmt(b / 1024 / 1024)} MB` : `${fmt(b / 1024)} KB`);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'warden-audit-flood-bench-'));
  try {
    console.log(`refused CONNECTs for ${seconds} s from 4 parallel loops, one instance:`);
    for (const distinct of [false, true]) {
      const label = distinct ? 'a new host per attempt' : 'one host';
      const base = await flood(dir, `base-${label}`, false, distinct);
      const guarded = await flood(dir, `guard-${label}`, true, distinct);
      for (const [name, r] of [
        ['without guard', base],
        ['with guard', guarded],
      ] as const) {
        console.log(
          `  ${label.padEnd(22)} ${name.padEnd(14)} ${fmt(r.attempts).padStart(7)} attempts, ` +
            `${fmt(r.rows).padStart(7)} rows, ${mb(r.bytes).padStart(9)} ` +
            `(per 10 s: ${fmt((r.rows * 10) / seconds)} rows, ${mb((r.bytes * 10) / seconds)})`,
        );
      }
      const perAttempt = (r: Run) => r.bytes / Math.max(1, r.attempts);
      console.log(
        `  ${label.padEnd(22)} bytes per attempt with guard / without: ${fmt((100 * perAttempt(guarded)) / perAttempt(base))} %`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
