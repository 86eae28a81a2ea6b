/**
 * What the relay itself costs the thread that relays, without any I/O: a `tools/call` and its
 * answer go through a `Relay` whose two transports only serialise what they are sent, with a gate
 * that lets everything through. Measured twice in one run, alternating: with the audit log on (the
 * store as the core opens it, its writer thread included) and with auditing off. Prints µs of CPU
 * of the main thread per call (read from /proc, so Linux only): set against `gateway-bench`'s
 * main-thread figure, the rest is the transports' I/O, the gate's checks and the session around.
 *
 *   node bench/run.mjs relay-bench [--calls N] [--rounds N]
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../app/audit/audit-event';
import { openAuditStore } from '../main/audit/audit-store';
import { WRITER_THREAD_DIR, WRITER_THREAD_FILE } from '../main/audit/writer-thread-client';
import { WRITTEN } from '../main/gateway/line-transport';
import { Relay } from '../main/gateway/relay';
import { benchFlags } from './bench-flags';

const { calls: CALLS, rounds: ROUNDS } = benchFlags(
  'relay-bench',
  'Main-thread CPU per call of the relay alone, with the audit log on and off.',
  {
    calls: { type: 'number', fallback: 100_000, help: 'calls per measurement' },
    rounds: { type: 'number', fallback: 3, help: 'alternating rounds' },
  },
);
const writerThread = join(resolve(process.cwd()), 'out', WRITER_THREAD_DIR, WRITER_THREAD_FILE);

/** CPU time of this process's main thread (user + system), in µs; 100 clock ticks per second. */
async function mainThreadUs(): Promise<number> {
  const stat = await readFile(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A transport that serialises what it is sent, as a line transport does, and writes nothing. */
function quietTransport(): Transport {
  return {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message: JSONRPCMessage) => {
      JSON.stringify(message);
      return WRITTEN;
    },
  };
}

const request = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"message":"ping"}}}`;
const answer = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"Echo: ping"}]}}`;

/** µs of main-thread CPU per relayed call (request and answer parsed, relayed, serialised). */
async function measure(audit: (event: AuditEventInput) => void, flush: () => Promise<void>) {
  const client = quietTransport();
  const upstream = quietTransport();
  const relay = new Relay({
    server: 'bench',
    instance: 'bench#1',
    client,
    clientLabel: 'stdio',
    upstream,
    gate: {
      filterList: (tools) => Promise.resolve(tools),
      checkCall: () => ({ allow: true }),
      checkResult: () => ({ kind: 'pass' }),
    },
    audit,
    redact: (value) => value,
    // As a line transport reports it: the length of the line just read.
    sizeOf: () => size,
  });
  relay.attach();
  let size = 0;
  const before = await mainThreadUs();
  for (let i = 0; i < CALLS; i++) {
    const asked = request(i);
    size = asked.length + 1;
    client.onmessage?.(JSON.parse(asked) as JSONRPCMessage);
    const answered = answer(i);
    size = answered.length + 1;
    upstream.onmessage?.(JSON.parse(answered) as JSONRPCMessage);
    // Let timers and the writer thread's answers run, as between the reads of a real session.
    if (i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  await flush();
  const used = (await mainThreadUs()) - before;
  relay.close();
  return used / CALLS;
}

const dir = await mkdtemp(join(tmpdir(), 'warden-relay-bench-'));
try {
  const opened = openAuditStore({ path: join(dir, 'audit.db'), writerThread });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  const audited: number[] = [];
  const bare: number[] = [];
  console.log(`relay benchmark: ${CALLS} calls per side, ${ROUNDS} rounds, no I/O`);
  for (let round = 1; round <= ROUNDS; round++) {
    audited.push(
      await measure(
        (event) => store.append(event),
        () => store.flush(),
      ),
    );
    bare.push(
      await measure(
        () => {},
        () => Promise.resolve(),
      ),
    );
  }
  await store.close();
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`relay, audit off            ${mid(bare).toFixed(2)} µs main-thread CPU per call`);
  console.log(
    `relay, audit on             ${mid(audited).toFixed(2)} µs main-thread CPU per call (the audit's share ${(mid(audited) - mid(bare)).toFixed(2)} µs)`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
