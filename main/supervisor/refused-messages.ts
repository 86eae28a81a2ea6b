/**
 * Messages of one session refused over a limit (size or nesting depth): what the client hears,
 * what the instance's log shows, and what the audit log records. A server that sends such
 * messages in a loop cannot flood the audit log: the first refusals are recorded one by one,
 * later ones as counted summaries (never silently).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { RefusedMessage } from '../gateway/line-transport';
import { RELAY_ERRORS, type Relay } from '../gateway/relay';

/** Refusals recorded one row each; beyond, one summary row per {@link SUMMARY_EVERY}. */
export const REFUSALS_RECORDED_ONE_BY_ONE = 20;
export const SUMMARY_EVERY = 1000;

export interface RefusedMessagesDeps {
  server: string;
  instance: string;
  audit: (event: AuditEventInput) => void;
  log: (line: string) => void;
  relay: Relay;
  client: Transport;
}

export class RefusedMessages {
  private count = 0;
  private unrecorded = 0;

  constructor(private readonly d: RefusedMessagesDeps) {}

  /** From the server: dropped unparsed; the call it answered (if it looked like an answer) fails. */
  fromServer(info: RefusedMessage): void {
    const message = refusalText('server', info);
    this.record(info, message);
    this.d.log(`[message refused] ${message}`);
    if (!info.hasMethod && info.hasAnswer) this.d.relay.failCall(info.id, codeOf(info), message);
  }

  /** From the client: a request gets the reason as its error. */
  fromClient(info: RefusedMessage): void {
    const message = refusalText('client', info);
    this.record(info, message);
    if (info.hasMethod && info.id !== undefined) {
      const error = { code: codeOf(info), message: `Warden: ${message}` };
      void this.d.client.send({ jsonrpc: '2.0', id: info.id, error }).catch(() => undefined);
    }
  }

  /** Records what the summaries have not yet counted (when the session ends). */
  flush(): void {
    if (this.unrecorded > 0) this.summary();
  }

  private record(info: RefusedMessage, detail: string): void {
    this.count++;
    if (this.count <= REFUSALS_RECORDED_ONE_BY_ONE) {
      this.d.audit({
        kind: 'limit.hit',
        outcome: 'refused',
        server: this.d.server,
        instance: this.d.instance,
        limit: info.limit,
        value: info.max,
        detail,
      });
      return;
    }
    this.unrecorded++;
    if (this.unrecorded >= SUMMARY_EVERY) this.summary();
  }

  private summary(): void {
    this.d.audit({
      kind: 'limit.hit',
      outcome: 'refused',
      server: this.d.server,
      instance: this.d.instance,
      limit: 'refusedMessages',
      value: this.unrecorded,
      detail: `${this.unrecorded} more messages refused over the size or depth limit (${this.count} in this session so far)`,
    });
    this.unrecorded = 0;
  }
}

function codeOf(info: RefusedMessage): number {
  return info.limit === 'messageDepth' ? RELAY_ERRORS.tooDeep : RELAY_ERRORS.tooLarge;
}

function refusalText(from: 'server' | 'client', info: RefusedMessage): string {
  if (info.limit === 'messageDepth')
    return `the ${from} sent a message nested deeper than ${info.max} levels; it was refused unread`;
  if (info.limit === 'messageContainers')
    return `the ${from} sent a message of more than ${info.max} arrays and objects (${info.bytes} bytes), too costly to read; it was refused unread`;
  return `the ${from} sent a message of ${info.bytes} bytes, over the limit of ${info.max} bytes (set a higher limit with --max-message-bytes)`;
}
