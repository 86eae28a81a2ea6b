/**
 * Relays JSON-RPC between one client session and its server instance, transparently, applying
 * the tool policy on the way and recording every request and response in the audit log. Each
 * direction is one ordered pipeline with back-pressure (see ordered-pipeline.ts); an approval
 * waits off the message path. An exception while handling a message becomes a JSON-RPC error for
 * the client and a fault of the session, never of the process.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ClientAnswers } from './client-answers';
import { WRITTEN } from './line-transport';
import { OrderedPipeline } from './ordered-pipeline';
import {
  CancelledCalls,
  type InFlight,
  type Queued,
  answerToNothing,
  errorRecord,
  estimateBytes,
  idError,
  idRefusedRecord,
  isNullIdRequest,
  isRequest,
  isResponse,
  requestRecord,
  responseRecord,
  startedCall,
  unsent,
} from './relay-messages';
import {
  type CallVerdict,
  type Id,
  RELAY_ERRORS,
  type RelayOptions,
  SESSION_LIMITS,
} from './relay-options';
import { routeServerMessage } from './server-messages';
import { TurnRecords } from './turn-records';
import { type IdRefusal, idRefusal, shownId } from './wire-values';

export {
  type CallVerdict,
  type MessageIntercept,
  RELAY_ERRORS,
  type RelayOptions,
  SESSION_LIMITS,
  type ServerRequest,
  type ServerRequestVerdict,
  type ToolGate,
} from './relay-options';

export class Relay {
  private readonly inFlight = new Map<Id, InFlight>();
  private readonly cancelled: CancelledCalls;
  private readonly now: () => number;
  private readonly limits: typeof SESSION_LIMITS;
  private readonly toClient: OrderedPipeline<Queued>;
  private readonly toUpstream: OrderedPipeline<Queued>;
  private closed = false;
  private faulted = false;
  /** The message whose delivery is being handled right now (its handling did not wait). */
  private delivering: JSONRPCMessage | undefined;
  /** Answers already written, to be recorded at the end of this turn. */
  private readonly answered: TurnRecords;
  /** The server's requests the client is to answer. */
  private readonly asks: ClientAnswers;

  constructor(private readonly o: RelayOptions) {
    this.now = o.now ?? (() => performance.now());
    this.limits = { ...SESSION_LIMITS, ...o.limits };
    this.asks = new ClientAnswers(o);
    this.answered = new TurnRecords((event) => o.audit(event));
    this.cancelled = new CancelledCalls(this.inFlight, this.limits.maxInFlight);
    this.toClient = new OrderedPipeline(this.limits, {
      step: (q) => this.fromUpstream(q),
      onPressure: (high) => o.pauseUpstream?.(high),
      onFault: (error, q) => this.fault(error, q.message, 'upstream'),
    });
    this.toUpstream = new OrderedPipeline(this.limits, {
      step: (q) => this.fromClient(q),
      onPressure: (high) => o.pauseClient?.(high),
      onFault: (error, q) => this.fault(error, q.message, 'client'),
    });
  }

  /** Wires both transports; the caller starts and closes them. */
  attach(): void {
    this.o.client.onmessage = (m) => this.enqueue(this.toUpstream, m, 'client');
    this.o.upstream.onmessage = (m) => this.enqueue(this.toClient, m, 'upstream');
  }

  /** Fails every call still waiting for the server, e.g. when the server died. */
  failInFlight(message: string, code: number = RELAY_ERRORS.serverGone): void {
    for (const id of [...this.inFlight.keys()]) this.replyError(id, code, message);
  }

  /**
   * Fails one call whose answer was refused unread (too large or too deep), in its place in the
   * server's order. Only a call sent to the server can be failed by its answer: without an id, the
   * only one sent is the one; false when none matched.
   */
  failCall(id: Id | undefined, code: number, message: string): boolean {
    const sent = [...this.inFlight].filter(([, call]) => call.forwarded).map(([key]) => key);
    const target =
      id === undefined ? (sent.length === 1 ? sent[0] : undefined) : sent.find((k) => k === id);
    if (target === undefined) {
      if (id !== undefined && this.inFlight.has(id)) this.o.onDropped?.(unsent(id));
      return false;
    }
    const placeholder: JSONRPCMessage = { jsonrpc: '2.0', id: target, result: {} };
    this.toClient.push({ message: placeholder, bytes: 0, fail: { code, message } }, 0);
    return true;
  }

  /**
   * Whether everything the client sent has been handled and answered: nothing waits in either
   * direction and no call waits for the server.
   */
  settled(): boolean {
    return this.inFlight.size === 0 && this.toUpstream.length === 0 && this.toClient.length === 0;
  }

  /** Resolves once what was queued for the client went out (or `ms` passed). */
  async flush(ms = 1000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.toClient.drained(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
  }

  close(): void {
    this.answered.flush();
    this.closed = true;
    this.toClient.close();
    this.toUpstream.close();
  }

  private enqueue(
    pipeline: OrderedPipeline<Queued>,
    message: JSONRPCMessage,
    from: 'client' | 'upstream',
  ): void {
    if (this.closed) return;
    this.o.onActivity?.();
    const bytes = this.o.sizeOf?.(message, from) || estimateBytes(message);
    this.delivering = message;
    try {
      if (this.o.scope) this.o.scope(() => pipeline.push({ message, bytes }, bytes));
      else pipeline.push({ message, bytes }, bytes);
    } finally {
      this.delivering = undefined;
    }
    const held =
      this.toClient.queuedBytes + this.toUpstream.queuedBytes + (this.o.bufferedBytes?.() ?? 0);
    if (held > this.limits.memoryBudgetBytes && !this.faulted) {
      this.answered.flush();
      this.faulted = true;
      const mb = Math.round(this.limits.memoryBudgetBytes / 1024 / 1024);
      this.o.onFault?.(
        `the session held more than its memory budget of ${mb} MB (${this.toClient.length} messages waiting for the client, ${this.toUpstream.length} for the server)`,
        { name: 'sessionMemoryBytes', value: this.limits.memoryBudgetBytes },
      );
    }
  }

  /** An exception while handling one message: the client hears it, the session ends. */
  private fault(error: unknown, message: JSONRPCMessage, from: 'client' | 'upstream'): void {
    this.answered.flush();
    const text = error instanceof Error ? error.message : String(error);
    const reason = `Warden could not handle a message from the ${from === 'client' ? 'client' : 'server'} (${text}); the session was ended`;
    const id = 'id' in message ? message.id : undefined;
    const answerable = from === 'client' ? isRequest(message) : isResponse(message);
    if (answerable && id !== undefined && id !== null) {
      this.replyError(id, RELAY_ERRORS.internal, reason, 'error', true);
    }
    if (this.faulted) return;
    this.faulted = true;
    this.o.onFault?.(reason);
  }

  /** Answers a client's request refused for its id, and records it; nothing is passed on. */
  private refuseId(
    message: JSONRPCMessage & { id: unknown; method: string },
    r: IdRefusal,
  ): undefined {
    this.o.audit(idRefusedRecord(this.o, message, r));
    const error = idError(r);
    const size = estimateBytes(error);
    this.toClient.push({ message: error, bytes: size, own: true }, size);
    return undefined;
  }

  private fromClient({ message, bytes }: Queued): Promise<void> | undefined {
    this.answered.flush();
    if (isNullIdRequest(message))
      return this.refuseId(
        message,
        idRefusal(null, () => false)!,
      );
    if (!isRequest(message)) {
      if (this.o.intercept?.fromClient(message)) return undefined;
      if (isResponse(message)) {
        const answer = this.asks.answered(message, bytes, this.now());
        // What answers nothing the server asked would reach it unrecorded.
        if (!answer) return void this.o.onDropped?.(answerToNothing(message.id));
        this.o.audit(answer);
      }
      if ('method' in message && message.method === 'notifications/cancelled') {
        const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof requestId === 'string' || typeof requestId === 'number')
          this.cancelled.cancel(requestId);
      }
      return this.forward(this.o.upstream, message);
    }
    // Refused for its id, a request leaves the calls waiting as they were (one under that id too).
    // The answer counts against the memory budget: it may echo a long id to a client not reading.
    const refusal = idRefusal(message.id, (id) => this.inFlight.has(id) || this.cancelled.has(id));
    if (refusal) return this.refuseId(message, refusal);
    if (this.inFlight.size >= this.limits.maxInFlight) {
      this.replyError(
        message.id,
        RELAY_ERRORS.overloaded,
        `more than ${this.limits.maxInFlight} requests are waiting for the server`,
        'refused',
        true,
      );
      return undefined;
    }
    const params = message.params ?? {};
    const tool =
      message.method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    const call = startedCall(message.method, tool, this.now());
    if (message.method === 'tools/list') call.fromStart = params.cursor === undefined;
    this.inFlight.set(message.id, call);
    this.o.audit(requestRecord(this.o, message, tool, params.arguments, bytes));
    if (message.method === 'tools/call') {
      if (tool === undefined) {
        this.replyError(message.id, -32602, 'tools/call needs a tool name');
        return undefined;
      }
      const verdict = this.o.gate.checkCall(tool, params.arguments, message.id);
      if (verdict instanceof Promise) {
        // Waiting for the user happens off the message path: the client's other messages go on.
        verdict.then(
          (v) => this.afterVerdict(message, call, v),
          (error: unknown) => this.fault(error, message, 'client'),
        );
        return undefined;
      }
      if (!verdict.allow) {
        this.replyError(message.id, RELAY_ERRORS.refused, verdict.message, 'refused');
        return undefined;
      }
    }
    call.forwarded = true;
    return this.forward(this.o.upstream, message);
  }

  /**
   * Sends or refuses a call once its verdict came, unless the call left meanwhile (cancelled, or
   * failed as the session ended), even when the client reused its id for another request.
   */
  private afterVerdict(
    message: JSONRPCMessage & { id: Id },
    call: InFlight,
    verdict: CallVerdict,
  ): void {
    if (this.closed || this.inFlight.get(message.id) !== call) return;
    if (!verdict.allow) {
      this.replyError(message.id, RELAY_ERRORS.refused, verdict.message, 'refused');
      return;
    }
    call.forwarded = true;
    void this.forward(this.o.upstream, message);
  }

  private fromUpstream({ message, bytes, own, fail }: Queued): Promise<void> | undefined {
    this.answered.flush();
    if (own) return this.forward(this.o.client, message);
    if (fail && isResponse(message)) {
      if (!this.inFlight.get(message.id)?.forwarded) return undefined;
      return this.forward(this.o.client, this.errorFor(message.id, fail.code, fail.message));
    }
    if (!isResponse(message)) {
      const routed = routeServerMessage(this.o, this.asks, message, bytes, this.now());
      const to = routed?.to === 'client' ? this.o.client : this.o.upstream;
      return routed && this.forward(to, routed.message);
    }
    const call = this.inFlight.get(message.id);
    if (!call) {
      // An answer to nothing in flight (never sent, cancelled, already answered, or failed): the
      // client would not know what to do with it.
      this.cancelled.delete(message.id);
      this.o.onDropped?.(`an answer with id ${shownId(message.id)} to no request in flight`);
      return undefined;
    }
    if (!call.forwarded) {
      // A server that guessed the id of a call held for approval must not answer it for the user.
      this.o.onDropped?.(unsent(message.id));
      return undefined;
    }
    let out: JSONRPCMessage = message;
    const result =
      'result' in message ? (message.result as Record<string, unknown> | undefined) : undefined;
    // A tool's answer, result or error, is what the client sees of the server: scan either.
    const answer = result ?? ('error' in message ? message.error : undefined);
    if (call.tool !== undefined && answer && this.o.gate.checkResult) {
      const verdict = this.o.gate.checkResult(call.tool, answer, message.id);
      if (verdict.kind === 'refuse') {
        return this.forward(
          this.o.client,
          this.errorFor(message.id, RELAY_ERRORS.refused, verdict.message, 'refused'),
        );
      }
      if (verdict.kind === 'replace')
        out = { ...message, [result ? 'result' : 'error']: verdict.result };
    }
    this.inFlight.delete(message.id);
    if (call.method === 'tools/list' && result && Array.isArray(result.tools)) {
      const whole = call.fromStart === true && result.nextCursor === undefined;
      return this.o.gate
        .filterList(result.tools, whole)
        .then((tools) =>
          this.answer(message, call, bytes, { ...message, result: { ...result, tools } }),
        );
    }
    return this.answer(message, call, bytes, out);
  }

  /** Records the server's answer to a call and passes it (as the gate left it) to the client. */
  private answer(
    message: JSONRPCMessage & { id: Id },
    call: InFlight,
    bytes: number,
    out: JSONRPCMessage,
  ): Promise<void> | undefined {
    const event = responseRecord(this.o, message, call, out, bytes, this.now());
    if (this.delivering !== message || !this.o.endsTurn?.('upstream')) {
      this.o.audit(event);
      return this.forward(this.o.client, out);
    }
    const sent = this.forward(this.o.client, out);
    this.answered.defer(event);
    return sent;
  }

  /** Answers a request with an error, queued behind what the client is still to receive. */
  private replyError(
    id: Id,
    code: number,
    message: string,
    outcome: 'refused' | 'error' = 'error',
    force = false,
  ): void {
    if (!this.inFlight.has(id) && !force) return;
    const error = this.errorFor(id, code, message, outcome);
    // Counted: a refusal may name what the client sent (a tool's name of megabytes).
    const size = estimateBytes(error);
    this.toClient.push({ message: error, bytes: size, own: true }, size);
  }

  /** Records the error answer to a request and returns it. */
  private errorFor(
    id: Id,
    code: number,
    message: string,
    outcome: 'refused' | 'error' = 'error',
  ): JSONRPCMessage {
    const call = this.inFlight.get(id);
    this.inFlight.delete(id);
    this.answered.flush();
    const durationMs = call ? Math.max(0, this.now() - call.startedAt) : 0;
    this.o.audit(errorRecord(this.o, id, call, { code, message }, outcome, durationMs));
    return { jsonrpc: '2.0', id, error: { code, message: `Warden: ${message}` } };
  }

  /** Sends; a promise only when the receiving side asked to wait (back-pressure). */
  private forward(to: Transport, message: JSONRPCMessage): Promise<void> | undefined {
    if (this.closed) return undefined;
    let sent: Promise<void>;
    try {
      sent = to.send(message);
    } catch {
      return undefined; // the other side is gone; its close handler takes over
    }
    // A send that failed: the other side is gone, and its close handler takes over.
    return sent === WRITTEN ? undefined : sent.catch(() => undefined);
  }
}
