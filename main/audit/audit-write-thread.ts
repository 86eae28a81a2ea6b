/**
 * The audit log's writer thread: a worker with its own connection to `audit.db` that writes the
 * batches the store hands it (redacting, summarizing and serializing each event, hashing the chain
 * and updating the indexes there), so that none of that work runs on the thread relaying MCP
 * messages. Each batch is one IMMEDIATE transaction
 * that reads the chain head inside it (audit-writer.ts), exactly as the store's own connection
 * would write it. Built to `out/audit-writer/audit-write-thread.cjs`; started by
 * writer-thread-client.ts, which it answers on the port it was given, bumping a shared counter
 * after each answer so that a store that must wait (a query, `flush`) can block on it.
 */
import { getPriority, setPriority } from 'node:os';
import { type MessagePort, workerData } from 'node:worker_threads';
import { addOutcomeIndex, openAuditDb } from './audit-db';
import { type SnapshotBatch, prepareBatch } from './audit-prepare';
import { type Written, prepareWriter } from './audit-writer';

/** What the store gives the thread when it starts it. */
export interface WriterThreadData {
  path: string;
  busyTimeoutMs?: number;
  port: MessagePort;
  /** One Int32: bumped (and notified) after every answer. */
  signal: SharedArrayBuffer;
}

/** A batch to write, or the request to close the connection and end. */
export type WriterRequest =
  | { kind: 'write'; seq: number; batch: SnapshotBatch; wantRows: boolean }
  | { kind: 'close'; seq: number };

export type WriterReply =
  | { kind: 'written'; seq: number; written: Written }
  | { kind: 'failed'; seq: number; message: string }
  | { kind: 'closed'; seq: number };

function serve(data: WriterThreadData): void {
  lowerPriority();
  const signal = new Int32Array(data.signal);
  const reply = (answer: WriterReply) => {
    data.port.postMessage(answer);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const opened = openAuditDb(data.path, {
    ...(data.busyTimeoutMs !== undefined ? { busyTimeoutMs: data.busyTimeoutMs } : {}),
  });
  let wantRows = false;
  if (opened.ok) addOutcomeIndex(opened.value.db);
  const write = opened.ok ? prepareWriter(opened.value, () => wantRows) : undefined;
  data.port.on('message', (request: WriterRequest) => {
    if (request.kind === 'close') {
      if (opened.ok) opened.value.db.close();
      reply({ kind: 'closed', seq: request.seq });
      data.port.close();
      return;
    }
    if (!write) {
      reply({ kind: 'failed', seq: request.seq, message: opened.ok ? '' : opened.error.message });
      return;
    }
    try {
      wantRows = request.wantRows;
      reply({ kind: 'written', seq: request.seq, written: write(prepareBatch(request.batch)) });
    } catch (error) {
      reply({
        kind: 'failed',
        seq: request.seq,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  });
}

/**
 * How much nicer than the relaying thread this one runs. Linux keeps a nice value per thread, so
 * only the writer yields: a relayed message that wakes up while a batch is being written gets
 * the CPU first, and the batch, which nothing waits for, finishes after.
 */
export const WRITER_NICE_INCREMENT = 10;

/** Lowers this thread's priority (never raises it); where the OS refuses, it stays as it is. */
function lowerPriority(): void {
  try {
    setPriority(0, Math.min(19, getPriority(0) + WRITER_NICE_INCREMENT));
  } catch {
    // Not permitted or not supported: the writer then competes as an equal.
  }
}

const data = workerData as Partial<WriterThreadData> | null;
if (data?.port && data.signal && typeof data.path === 'string') serve(data as WriterThreadData);
