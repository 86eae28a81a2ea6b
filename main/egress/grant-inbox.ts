/**
 * Pending network grants in `ask` mode. Connections waiting on the same server, instance, host and
 * port share one grant, so "allow once" and "deny" apply to the connections waiting at that moment
 * and the next one asks again. A grant ends with one of the five decisions, the timeout (refused),
 * or when its instance ends. The two "always" decisions are saved through `persistRule` (the
 * config store, which bumps the server's revision) before the waiting connections proceed.
 */
import { EventEmitter } from 'node:events';
import type {
  GrantDecidedEvent,
  GrantDecision,
  GrantOutcomeKind,
  PendingGrant,
} from '../../app/contract/grants';
import { type Result, err, ok } from '../../app/result';

/** A rule to add to a server's policy: `network.allow` or `network.deny`. */
export interface PersistedRule {
  list: 'allow' | 'deny';
  pattern: string;
}

export interface GrantInboxOptions {
  persistRule?: (server: string, rule: PersistedRule) => Promise<void> | void;
  /** Distinct destinations one instance may have waiting at once; more are refused at once. */
  maxPendingPerInstance?: number;
}

export interface GrantRequest {
  server: string;
  instance: string;
  host: string;
  port: number;
  /** The pattern an "always" decision saves, e.g. `api.example.com:443`. */
  pattern: string;
  timeoutMs: number;
}

export type GrantAnswer = { outcome: GrantOutcomeKind | 'limit'; grantId?: string };

/** What an instance's egress needs of the inbox: to ask, and to drop its waits when it ends. */
export type GrantRequests = Pick<GrantInbox, 'request' | 'cancelInstance'>;

export interface GrantError {
  kind: 'unknown-grant' | 'persist-failed';
  message: string;
  remedy: string;
}

interface Entry {
  grant: PendingGrant;
  pattern: string;
  waiters: ((a: GrantAnswer) => void)[];
  timer: NodeJS.Timeout;
}

export class GrantInbox {
  private readonly entries = new Map<string, Entry>();
  private readonly byKey = new Map<string, string>();
  private readonly events = new EventEmitter();
  private seq = 0;

  constructor(private readonly opts: GrantInboxOptions = {}) {}

  /** Holds a connection until the user decides, sharing a grant with identical waiters. */
  request(req: GrantRequest): Promise<GrantAnswer> {
    const key = `${req.server}\0${req.instance}\0${req.host}\0${req.port}`;
    return new Promise((resolve) => {
      const existing = this.entries.get(this.byKey.get(key) ?? '');
      if (existing) {
        existing.waiters.push(resolve);
        existing.grant.waiting++;
        return;
      }
      const max = this.opts.maxPendingPerInstance ?? 32;
      if (this.pending().filter((g) => g.instance === req.instance).length >= max) {
        return resolve({ outcome: 'limit' });
      }
      const now = Date.now();
      const id = `g-${++this.seq}-${now.toString(36)}`;
      const grant: PendingGrant = {
        id,
        server: req.server,
        instance: req.instance,
        host: req.host,
        port: req.port,
        waiting: 1,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + req.timeoutMs).toISOString(),
      };
      const timer = setTimeout(() => this.finish(id, 'timeout'), req.timeoutMs);
      timer.unref();
      this.entries.set(id, { grant, pattern: req.pattern, waiters: [resolve], timer });
      this.byKey.set(key, id);
      this.events.emit('pending', { ...grant });
    });
  }

  /** Grants waiting for a decision, oldest first. */
  pending(): PendingGrant[] {
    return [...this.entries.values()].map((e) => ({ ...e.grant }));
  }

  /** Applies a decision; "always" decisions are saved first and fail without effect. */
  async decide(id: string, decision: GrantDecision): Promise<Result<PendingGrant, GrantError>> {
    const entry = this.entries.get(id);
    if (!entry) {
      return err({
        kind: 'unknown-grant',
        message: `no pending grant ${id}: it was already decided, timed out, or its instance ended`,
        remedy: 'refresh the list of pending grants',
      });
    }
    let saved: PersistedRule | undefined;
    if (decision === 'allow-always' || decision === 'deny-always') {
      saved = { list: decision === 'allow-always' ? 'allow' : 'deny', pattern: entry.pattern };
      try {
        await this.opts.persistRule?.(entry.grant.server, saved);
      } catch (e) {
        return err({
          kind: 'persist-failed',
          message: `could not save "${saved.pattern}" to ${entry.grant.server}'s policy: ${(e as Error).message}`,
          remedy: 'choose "allow for this session" or "deny", or fix the config file and try again',
        });
      }
      if (!this.entries.has(id)) return ok(entry.grant);
    }
    this.finish(id, decision, saved);
    return ok(entry.grant);
  }

  /** Refuses every grant of an instance that ended. */
  cancelInstance(instance: string): void {
    for (const e of [...this.entries.values()]) {
      if (e.grant.instance === instance) this.finish(e.grant.id, 'cancelled');
    }
  }

  onPending(listener: (g: PendingGrant) => void): () => void {
    this.events.on('pending', listener);
    return () => this.events.off('pending', listener);
  }

  onDecided(listener: (e: GrantDecidedEvent) => void): () => void {
    this.events.on('decided', listener);
    return () => this.events.off('decided', listener);
  }

  private finish(id: string, outcome: GrantOutcomeKind, savedRule?: PersistedRule): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.entries.delete(id);
    const g = entry.grant;
    this.byKey.delete(`${g.server}\0${g.instance}\0${g.host}\0${g.port}`);
    const event: GrantDecidedEvent = { grant: { ...g }, outcome, at: new Date().toISOString() };
    if (savedRule) event.savedRule = savedRule;
    this.events.emit('decided', event);
    for (const w of entry.waiters) w({ outcome, grantId: id });
  }
}
