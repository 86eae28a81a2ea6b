/**
 * The store's side of the audit writer thread (audit-write-thread.ts): one batch in flight at a
 * time, so batches commit in the order they were queued. Answers arrive as messages while the
 * event loop runs; a caller that needs the log written now (a query, `flush`, `close`) blocks on
 * the shared counter the thread bumps after each answer, and takes the answer off the port
 * without waiting for the event loop. A thread that exits or fails is reported once; the store
 * then writes on its own connection.
 */
import {
  MessageChannel,
  type MessagePort,
  Worker,
  receiveMessageOnPort,
} from 'node:worker_threads';
import type { WriterReply, WriterRequest, WriterThreadData } from './audit-write-thread';
import { type Snapshot, toBatch } from './audit-prepare';
import type { Written } from './audit-writer';

/** Where the build puts the writer thread, under `out/`. */
export const WRITER_THREAD_DIR = 'audit-writer';
export const WRITER_THREAD_FILE = 'audit-write-thread.cjs';

/** How the store learns what became of a batch it handed over: written, or why not. */
export type BatchOutcome = (outcome: { written: Written } | string, batch: Snapshot[]) => void;

export class WriterThreadClient {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private seq = 0;
  private inFlight: { seq: number; batch: Snapshot[] } | undefined;
  private exited: Promise<void>;
  /** Set once the thread is gone (it exited or threw); the store stops using it. */
  failed: Error | undefined;

  constructor(
    script: string,
    dbPath: string,
    busyTimeoutMs: number | undefined,
    private readonly outcome: BatchOutcome,
    private readonly onFailure: (error: Error) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.port = port1;
    this.signal = new Int32Array(signal);
    const data: WriterThreadData = {
      path: dbPath,
      ...(busyTimeoutMs !== undefined ? { busyTimeoutMs } : {}),
      port: port2,
      signal,
    };
    this.worker = new Worker(script, { workerData: data, transferList: [port2] });
    this.worker.unref();
    this.port.on('message', (reply: WriterReply) => this.answer(reply));
    this.port.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.once('error', (error) => this.fail(error));
    this.worker.once('exit', (code) => this.fail(new Error(`exited with code ${code}`)));
  }

  /** Whether a batch is being written. */
  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** Hands a batch over; its outcome is reported once the thread answers. */
  write(batch: Snapshot[], wantRows: boolean): void {
    if (this.inFlight) throw new Error('a batch is already being written');
    const seq = ++this.seq;
    this.inFlight = { seq, batch };
    this.post({ kind: 'write', seq, batch: toBatch(batch), wantRows });
  }

  /**
   * Blocks until the batch in flight is answered (its outcome reported before this returns), or
   * `timeoutMs` passed; false on time-out, when the batch stays in flight.
   */
  settle(timeoutMs: number): boolean {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight && !this.failed) {
      const seen = Atomics.load(this.signal, 0);
      const received = receiveMessageOnPort(this.port);
      if (received) {
        this.answer(received.message as WriterReply);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) return false;
      Atomics.wait(this.signal, 0, seen, Math.min(left, 250));
    }
    return true;
  }

  /** Asks the thread to close its connection and end; resolves once it has. */
  async close(): Promise<void> {
    if (!this.failed) {
      this.failed = new Error('closed');
      this.post({ kind: 'close', seq: ++this.seq });
    }
    const timer = setTimeout(() => void this.worker.terminate(), 5000);
    await this.exited;
    clearTimeout(timer);
    this.port.close();
  }

  private post(request: WriterRequest): void {
    this.port.postMessage(request);
  }

  private answer(reply: WriterReply): void {
    const batch = this.inFlight;
    if (!batch || reply.seq !== batch.seq) return;
    this.inFlight = undefined;
    this.outcome(
      reply.kind === 'written'
        ? { written: reply.written }
        : reply.kind === 'failed'
          ? reply.message
          : 'the writer thread closed',
      batch.batch,
    );
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = new Error(`The audit writer thread stopped (${error.message}).`);
    const batch = this.inFlight;
    this.inFlight = undefined;
    if (batch) this.outcome(this.failed.message, batch.batch);
    this.onFailure(this.failed);
  }
}
