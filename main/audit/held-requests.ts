/**
 * One row a call where the order of the log allows it. A call's `mcp.request` is held, not
 * queued, and when its `mcp.response` comes within `holdMs` with nothing else recorded in between,
 * the two become one `mcp.call` row: half the rows, the hashing and the SQLite writes for the
 * calls a client makes most. Anything else recorded (by any session: a network decision, an
 * approval, a drift note, an answer to a request no longer held) first writes every held request
 * as its own row, in the order they came, so the log keeps the order things were seen in; the
 * answer then follows as an `mcp.response` row, as before. So does a held request once `holdMs`
 * passed, and every held request when the log is flushed, read or closed. Between calls the order
 * is the answers': a call's row comes when it was answered, and a request still waiting then
 * comes after it.
 *
 * What a crash may lose grows by `holdMs`: a request is queued at the latest that long after it
 * came, where it was queued at once before (and the queue itself is written every few ms).
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { Snapshot } from './audit-prepare';

type Input<K extends AuditEventInput['kind']> = Extract<AuditEventInput, { kind: K }>;

/** What the store lends: how it fixes an event at `append`, and how it queues one. */
export interface HeldSink {
  /** The event's JSON (with its time) and the secrets of this moment, fixed now. */
  snapshot(event: AuditEventInput): Snapshot;
  queue(taken: Snapshot): void;
}

interface Held {
  /** The request as `append` would have queued it (later changes to its objects do not count). */
  taken: Snapshot;
  method: string;
  /** When it came, `performance.now()`. */
  at: number;
}

/** Whose request an answer can complete: the server, its instance and the JSON-RPC id. */
function keyOf(e: Input<'mcp.request'> | Input<'mcp.response'>): string {
  const id = e.requestId;
  return `${e.server ?? ''}\0${e.instance ?? ''}\0${typeof id}:${String(id)}`;
}

/** The row a request and its answer make together. */
export function callOf(
  request: Input<'mcp.request'>,
  response: Input<'mcp.response'>,
): Input<'mcp.call'> {
  return {
    kind: 'mcp.call',
    // The answer's time: given when it was stamped before the log opened (deferred-audit.ts).
    ...(response.ts !== undefined ? { ts: response.ts } : {}),
    outcome: response.outcome,
    ...(response.server !== undefined ? { server: response.server } : {}),
    ...(response.instance !== undefined ? { instance: response.instance } : {}),
    requestId: response.requestId,
    method: request.method,
    ...(request.tool !== undefined ? { tool: request.tool } : {}),
    ...(request.args !== undefined ? { args: request.args } : {}),
    ...(request.client !== undefined ? { client: request.client } : {}),
    requestBytes: request.sizeBytes,
    ...(response.resultSummary !== undefined ? { resultSummary: response.resultSummary } : {}),
    durationMs: response.durationMs,
    sizeBytes: response.sizeBytes,
    ...(response.error !== undefined ? { error: response.error } : {}),
  };
}

export class HeldRequests {
  /** In the order they came (a Map keeps insertion order). */
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: HeldSink,
    private readonly holdMs: number,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /**
   * Takes `event` as `append` was given it: true when it was held or completed a held request
   * (then queued as one row); false when the caller records it as usual, every held request
   * having been queued ahead of it.
   */
  offer(event: AuditEventInput): boolean {
    if (event.kind === 'mcp.request') {
      const key = keyOf(event);
      // Two requests by one id (a client reusing it): the first is not left to a wrong answer.
      if (this.held.has(key)) this.releaseAll();
      const taken = this.sink.snapshot(event);
      this.held.set(key, { taken, method: event.method, at: performance.now() });
      this.timer ??= setTimeout(this.expire, this.holdMs).unref();
      return true;
    }
    if (this.held.size === 0) return false;
    if (event.kind === 'mcp.response') {
      const key = keyOf(event);
      const held = this.held.get(key);
      if (held && held.method === event.method) {
        this.held.delete(key);
        this.sink.queue(this.joined(held.taken, event));
        return true;
      }
    }
    this.releaseAll();
    return false;
  }

  /** Queues every held request, in the order they came. */
  releaseAll(): void {
    this.stop();
    const held = [...this.held.values()];
    this.held.clear();
    for (const h of held) this.sink.queue(h.taken);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * The call's row, from the request as it was fixed when it came: redacted with the secrets of
   * both moments, so a secret dropped in between still does not reach the log.
   */
  private joined(request: Snapshot, response: Input<'mcp.response'>): Snapshot {
    const call = this.sink.snapshot(
      callOf(JSON.parse(request.json) as Input<'mcp.request'>, response),
    );
    if (request.secrets === call.secrets || request.secrets.length === 0) return call;
    return { json: call.json, secrets: [...request.secrets, ...call.secrets] };
  }

  /** Queues the requests held `holdMs` or longer; waits again for the oldest of the rest. */
  private readonly expire = (): void => {
    this.timer = undefined;
    const due = performance.now() - this.holdMs;
    for (const [key, h] of this.held) {
      if (h.at > due) {
        this.timer = setTimeout(this.expire, Math.max(1, h.at - due)).unref();
        return;
      }
      this.held.delete(key);
      this.sink.queue(h.taken);
    }
  };
}
