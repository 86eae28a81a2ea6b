/**
 * Roots mediation for one session. When the server asks for the client's roots (`roots/list`),
 * Warden asks the client itself, answers the server with the part of those roots its sandbox can
 * see (roots-paths.ts), and puts each client folder outside the policy to the user as a folder
 * grant. An allowed grant restarts the instance with the folder bound, and the server is told the
 * list changed. A client that did not declare the roots capability is left alone: the request
 * passes through as before.
 */
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { folderDecisionParts } from '../../app/contract/folder-decision';
import type { FolderInbox } from './roots-inbox';
import { type FolderReal, intersectRoots } from './roots-paths';
import type { RootsSessionSide } from './roots-session';

type Id = string | number;

/** What every session of one server shares: the host, the inbox, the log. */
export interface RootsShared {
  server: string;
  clientLabel: string;
  real: FolderReal;
  /** Why a folder may not be granted at all (a hidden path, Warden's state), if so. */
  forbidden: (path: string) => Promise<string | undefined>;
  inbox: Pick<FolderInbox, 'request' | 'cancelInstance'>;
  audit: (event: AuditEventInput) => void;
}

export type RootsMediatorDeps = RootsShared & RootsSessionSide;

/** Server requests for roots answered at once per session; more get an error (a hostile loop). */
export const MAX_WAITING_ROOTS_REQUESTS = 16;
const CLIENT_ANSWER_MS = 30_000;

export class RootsMediator {
  private clientRoots: Promise<unknown> | undefined;
  private waiting = 0;
  private seq = 0;
  /** The ids of Warden's own questions to the client: not guessable by the server. */
  private readonly prefix = `warden-roots-${randomUUID()}-`;
  private readonly asks = new Map<string, (result: unknown) => void>();
  /** Folders already put to the user in this session (asked, denied, timed out or granted). */
  private readonly asked = new Set<string>();
  private ended = false;

  constructor(private readonly d: RootsMediatorDeps) {}

  /** The client as the user knows it: the name it gave, then how it is connected. */
  private clientText(): string {
    const name = this.d.clientName?.();
    return name ? `${name} (${this.d.clientLabel})` : this.d.clientLabel;
  }

  /** The session ended: its waiting grants are cancelled, nothing more is asked. */
  end(): void {
    this.ended = true;
    this.d.inbox.cancelInstance(this.d.instance);
    for (const settle of [...this.asks.values()]) settle(undefined);
  }

  /** A message from the server; true when it was the mediator's to answer. */
  fromServer(message: JSONRPCMessage): boolean {
    const id = 'id' in message ? message.id : undefined;
    // A server request carrying the id of one of Warden's own questions is dropped.
    if (typeof id === 'string' && id.startsWith(this.prefix)) return true;
    if (!('method' in message) || message.method !== 'roots/list') return false;
    if (id === undefined || id === null) return false;
    if (!this.clientHasRoots()) return false;
    if (this.waiting >= MAX_WAITING_ROOTS_REQUESTS) {
      void this.d.sendToServer(rootsError(id, 'too many roots requests at once'));
      return true;
    }
    this.waiting++;
    void this.answer(id)
      .catch((error: unknown) =>
        this.d.sendToServer(rootsError(id, `could not list roots (${(error as Error).message})`)),
      )
      .catch(() => undefined)
      .finally(() => this.waiting--);
    return true;
  }

  /** A message from the client; true when it answers a question of the mediator's own. */
  fromClient(message: JSONRPCMessage): boolean {
    if ('method' in message) {
      // The client's folders changed: ask it again on the server's next request.
      if (message.method === 'notifications/roots/list_changed') this.clientRoots = undefined;
      return false;
    }
    const id = 'id' in message ? message.id : undefined;
    if (typeof id !== 'string' || !id.startsWith(this.prefix)) return false;
    const settle = this.asks.get(id);
    if (!settle) return true;
    this.asks.delete(id);
    settle('result' in message ? (message.result as { roots?: unknown } | null)?.roots : undefined);
    return true;
  }

  private clientHasRoots(): boolean {
    const caps = this.d.clientCapabilities() as { roots?: unknown } | undefined;
    return typeof caps?.roots === 'object' && caps.roots !== null;
  }

  private async answer(id: Id): Promise<void> {
    this.clientRoots ??= this.askClient();
    const roots = await this.clientRoots;
    if (roots === undefined) {
      this.clientRoots = undefined;
      await this.d.sendToServer(rootsError(id, 'the client did not list its roots'));
      return;
    }
    const folders = this.d.folders();
    const found = await intersectRoots(roots, folders, this.d.real);
    this.d.audit({
      kind: 'roots.answered',
      outcome: found.leftOut.length > 0 ? 'refused' : 'ok',
      server: this.d.server,
      instance: this.d.instance,
      requestId: id,
      offered: found.roots.map((r) => r.uri),
      leftOut: found.leftOut.slice(0, 20),
    });
    await this.d.sendToServer({ jsonrpc: '2.0', id, result: { roots: found.roots } });
    for (const path of found.outside) void this.offer(path);
  }

  /** Asks the client for its roots; undefined when it answered with an error or not at all. */
  private askClient(): Promise<unknown> {
    const id = `${this.prefix}${++this.seq}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.asks.delete(id);
        resolve(undefined);
      }, CLIENT_ANSWER_MS);
      timer.unref();
      this.asks.set(id, (roots) => {
        clearTimeout(timer);
        resolve(roots);
      });
      void this.d
        .sendToClient({ jsonrpc: '2.0', id, method: 'roots/list' })
        .catch(() => this.asks.get(id)?.(undefined));
    });
  }

  /** Puts one folder outside the policy to the user, once per session. */
  private async offer(path: string): Promise<void> {
    if (this.asked.has(path) || this.ended) return;
    this.asked.add(path);
    const refused = await this.d.forbidden(path);
    if (refused !== undefined) {
      this.d.audit({
        kind: 'folder.decided',
        outcome: 'refused',
        server: this.d.server,
        instance: this.d.instance,
        grantId: '-',
        path,
        decision: 'refused',
        by: 'policy',
        reason: refused,
      });
      return;
    }
    const outcome = await this.d.inbox.request({
      server: this.d.server,
      instance: this.d.instance,
      client: this.clientText(),
      path,
    });
    const parts =
      outcome === 'timeout' || outcome === 'cancelled' || outcome === 'refused'
        ? ({ allow: false } as const)
        : folderDecisionParts(outcome);
    if (!parts.allow || this.ended) return;
    await this.d.grant({ path, access: parts.access }, parts.always);
    await this.d.sendToServer({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
  }
}

function rootsError(id: Id, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: `Warden: ${message}` } };
}
