/**
 * The server's requests passed on to the client and not answered yet, so that the client's
 * answer is recorded with what it answers (`mcp.client-answer`): its kind, never its content. A
 * form's answer names the fields the user filled in, a model's names how long its text is; the
 * values stay out of the log, since a server that asks may be fishing for exactly them.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { Id } from './relay-options';
import { cut, recordedMethod, recordedText } from './wire-values';

/** How many unanswered requests are remembered; past that the oldest is forgotten. */
export const MAX_WAITING = 4096;
/** Field names a form's answer lists before it counts the rest, and the length of each. */
const MAX_FIELDS = 20;
const MAX_NAME = 64;

interface Waiting {
  method: string;
  startedAt: number;
}

export class ClientAnswers {
  private readonly waiting = new Map<Id, Waiting>();

  constructor(
    private readonly at: { server: string; instance: string; redact: (v: unknown) => unknown },
    private readonly max = MAX_WAITING,
  ) {}

  /** Whether the server's request `id` still waits for the client's answer. */
  isWaiting(id: Id): boolean {
    return this.waiting.has(id);
  }

  /**
   * The server's request `id` was passed on to the client at `now`. The server chooses the id
   * and the method: a long id was refused (see wire-values.ts), a long method is kept cut.
   */
  asked(id: Id, method: string, now: number): void {
    this.waiting.set(id, { method: recordedMethod(method), startedAt: now });
    // A client that never answers must not grow this without end.
    if (this.waiting.size > this.max) this.waiting.delete(this.waiting.keys().next().value!);
  }

  /** The record of the client's answer, or undefined when it answers nothing the server asked. */
  answered(
    message: JSONRPCMessage & { id: Id },
    bytes: number,
    now: number,
  ): AuditEventInput | undefined {
    const asked = this.waiting.get(message.id);
    if (!asked) return undefined;
    this.waiting.delete(message.id);
    const error =
      'error' in message ? (message.error as { code?: unknown; message?: unknown }) : undefined;
    const summary = 'result' in message ? resultSummary(asked.method, message.result) : undefined;
    return {
      kind: 'mcp.client-answer',
      outcome: error ? 'error' : 'ok',
      server: this.at.server,
      instance: this.at.instance,
      requestId: message.id,
      method: asked.method,
      ...(error && {
        error: {
          code: Number.isInteger(error.code) ? (error.code as number) : 0,
          message: recordedText(
            String(this.at.redact(typeof error.message === 'string' ? error.message : '')),
          ),
        },
      }),
      // Names and a model's name come from the server and the client: a credential there too.
      ...(summary !== undefined && { resultSummary: String(this.at.redact(summary)) }),
      durationMs: Math.max(0, now - asked.startedAt),
      sizeBytes: bytes,
    };
  }
}

/** What the log says of an answer: its kind and size, no value the user or the model gave. */
export function resultSummary(method: string, result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as Record<string, unknown>;
  if (method === 'elicitation/create') {
    const action = typeof r.action === 'string' ? r.action : 'no action';
    const content = r.content;
    if (typeof content !== 'object' || content === null || Array.isArray(content)) return action;
    const names = Object.keys(content);
    if (names.length === 0) return action;
    const shown = names.slice(0, MAX_FIELDS).map((n) => JSON.stringify(cut(n, MAX_NAME)));
    const more = names.length > MAX_FIELDS ? ` and ${names.length - MAX_FIELDS} more` : '';
    return `${action}: field${names.length === 1 ? '' : 's'} ${shown.join(', ')}${more}`;
  }
  if (method === 'sampling/createMessage') {
    const content = r.content as { type?: unknown; text?: unknown } | undefined;
    const what =
      typeof content?.text === 'string'
        ? `text of ${content.text.length} characters`
        : typeof content?.type === 'string'
          ? `${quoted(content.type)} content`
          : 'no content';
    const model = typeof r.model === 'string' ? ` from model ${quoted(r.model)}` : '';
    const stop = typeof r.stopReason === 'string' ? `, stop ${quoted(r.stopReason)}` : '';
    return `${what}${model}${stop}`;
  }
  return undefined;
}

const quoted = (text: string) => JSON.stringify(cut(text, MAX_NAME));
