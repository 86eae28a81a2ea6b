/**
 * Relays JSON-RPC between one client session and its server instance, transparently, applying
 * the tool policy on the way and recording every request and response in the audit log.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';

type Id = string | number;

/** What the tool policy says about a call. */
export type CallVerdict = { allow: true } | { allow: false; message: string };

/** The tool policy, applied by the relay (see tool-gate.ts). */
export interface ToolGate {
  /** The tools the client may see, given the server's full list. */
  filterList(tools: unknown[]): Promise<unknown[]>;
  /** Whether a call may go through; may wait for the user's approval. */
  checkCall(tool: string, args: unknown, requestId: Id): Promise<CallVerdict>;
}

export interface RelayOptions {
  server: string;
  instance: string;
  client: Transport;
  upstream: Transport;
  gate: ToolGate;
  audit: (event: AuditEventInput) => void;
  /** Replaces secret values before anything is recorded. */
  redact: (value: unknown) => unknown;
  /** Size of the message just delivered by a transport, when it knows it. */
  sizeOf?: (message: JSONRPCMessage, from: 'client' | 'upstream') => number;
  /** Called on any traffic (for idle timeouts). */
  onActivity?: () => void;
  now?: () => number;
}

interface InFlight {
  method: string;
  tool: string | undefined;
  startedAt: number;
}

/** JSON-RPC error codes used by the relay. */
export const RELAY_ERRORS = {
  refused: -32001,
  serverGone: -32002,
  tooLarge: -32003,
} as const;

function isRequest(
  m: JSONRPCMessage,
): m is JSONRPCMessage & { id: Id; method: string; params?: Record<string, unknown> } {
  return 'method' in m && 'id' in m && m.id !== undefined && m.id !== null;
}

function isResponse(m: JSONRPCMessage): m is JSONRPCMessage & { id: Id } {
  return !('method' in m) && 'id' in m;
}

function summarize(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { content?: unknown[]; tools?: unknown[]; isError?: boolean };
  if (Array.isArray(r.tools)) return `${r.tools.length} tools`;
  if (Array.isArray(r.content))
    return `${r.content.length} content block${r.content.length === 1 ? '' : 's'}${r.isError ? ' (tool error)' : ''}`;
  return undefined;
}

export class Relay {
  private readonly inFlight = new Map<Id, InFlight>();
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly o: RelayOptions) {
    this.now = o.now ?? (() => performance.now());
  }

  /** Wires both transports; the caller starts and closes them. */
  attach(): void {
    this.o.client.onmessage = (m) => void this.fromClient(m);
    this.o.upstream.onmessage = (m) => void this.fromUpstream(m);
  }

  /** Fails every call still waiting for the server, e.g. when the server died. */
  failInFlight(message: string, code: number = RELAY_ERRORS.serverGone): void {
    for (const id of [...this.inFlight.keys()]) this.replyError(id, code, message);
  }

  /** Fails one call whose response could not be delivered (e.g. too large). */
  failCall(id: Id | undefined, code: number, message: string): boolean {
    if (id !== undefined && this.inFlight.has(id)) {
      this.replyError(id, code, message);
      return true;
    }
    if (id === undefined && this.inFlight.size === 1) {
      this.replyError([...this.inFlight.keys()][0]!, code, message);
      return true;
    }
    return false;
  }

  close(): void {
    this.closed = true;
  }

  private async fromClient(message: JSONRPCMessage): Promise<void> {
    this.o.onActivity?.();
    if (!isRequest(message)) {
      await this.forward(this.o.upstream, message);
      return;
    }
    const params = message.params ?? {};
    const tool =
      message.method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    this.inFlight.set(message.id, { method: message.method, tool, startedAt: this.now() });
    this.o.audit({
      kind: 'mcp.request',
      outcome: 'info',
      server: this.o.server,
      instance: this.o.instance,
      requestId: message.id,
      method: message.method,
      ...(tool !== undefined ? { tool, args: this.o.redact(params.arguments ?? {}) } : {}),
      sizeBytes: this.o.sizeOf?.(message, 'client') ?? 0,
    });
    if (message.method === 'tools/call') {
      if (tool === undefined) {
        this.replyError(message.id, -32602, 'tools/call needs a tool name');
        return;
      }
      const verdict = await this.o.gate.checkCall(tool, params.arguments, message.id);
      if (!verdict.allow) {
        this.replyError(message.id, RELAY_ERRORS.refused, verdict.message, 'refused');
        return;
      }
    }
    await this.forward(this.o.upstream, message);
  }

  private async fromUpstream(message: JSONRPCMessage): Promise<void> {
    this.o.onActivity?.();
    if (!isResponse(message)) {
      await this.forward(this.o.client, message);
      return;
    }
    const call = this.inFlight.get(message.id);
    if (!call) {
      await this.forward(this.o.client, message);
      return;
    }
    this.inFlight.delete(message.id);
    let out = message;
    const result =
      'result' in message ? (message.result as Record<string, unknown> | undefined) : undefined;
    if (call.method === 'tools/list' && result && Array.isArray(result.tools)) {
      out = {
        ...message,
        result: { ...result, tools: await this.o.gate.filterList(result.tools) },
      };
    }
    const error =
      'error' in message ? (message.error as { code: number; message: string }) : undefined;
    this.o.audit({
      kind: 'mcp.response',
      outcome: error ? 'error' : 'ok',
      server: this.o.server,
      instance: this.o.instance,
      requestId: message.id,
      method: call.method,
      ...(call.tool !== undefined ? { tool: call.tool } : {}),
      ...(error
        ? { error: { code: error.code, message: String(this.o.redact(error.message)) } }
        : {}),
      ...(summarize(result) ? { resultSummary: summarize(result) } : {}),
      durationMs: Math.max(0, this.now() - call.startedAt),
      sizeBytes: this.o.sizeOf?.(message, 'upstream') ?? 0,
    });
    await this.forward(this.o.client, out);
  }

  private replyError(
    id: Id,
    code: number,
    message: string,
    outcome: 'refused' | 'error' = 'error',
  ): void {
    const call = this.inFlight.get(id);
    this.inFlight.delete(id);
    this.o.audit({
      kind: 'mcp.response',
      outcome,
      server: this.o.server,
      instance: this.o.instance,
      requestId: id,
      method: call?.method ?? 'unknown',
      ...(call?.tool !== undefined ? { tool: call.tool } : {}),
      error: { code, message },
      durationMs: call ? Math.max(0, this.now() - call.startedAt) : 0,
      sizeBytes: 0,
    });
    void this.forward(this.o.client, {
      jsonrpc: '2.0',
      id,
      error: { code, message: `Warden: ${message}` },
    });
  }

  private async forward(to: Transport, message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    try {
      await to.send(message);
    } catch {
      /* the other side is gone; its close handler takes over */
    }
  }
}
