/**
 * Folder grants waiting in the inbox: a client root outside a server's policy, one grant per
 * session and folder. A grant ends with a decision, its timeout, or its session ending, and each
 * step is audited. The "always" decisions are saved first, through the config store (which checks
 * the managed layer and bumps the revision); a refused save leaves the grant waiting.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { folderDecisionParts } from '../../app/contract/folder-decision';
import type {
  FolderDecision,
  FolderOutcome,
  PendingFolderGrant,
} from '../../app/contract/folder-grants';
import type { Root } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';

/** How long a folder grant waits: nothing is held meanwhile, the folder is simply left out. */
export const FOLDER_GRANT_TIMEOUT_MS = 10 * 60_000;
/** Folders one session may have waiting at once; more are left out without asking. */
export const MAX_PENDING_FOLDERS = 8;

export interface FolderInboxError {
  kind: 'unknown-grant' | 'persist-failed';
  message: string;
  remedy: string;
}

interface Entry {
  grant: PendingFolderGrant;
  resolve: (outcome: FolderOutcome) => void;
  timer: NodeJS.Timeout;
}

export interface FolderInboxOptions {
  audit: (event: AuditEventInput) => void;
  /** Saves a folder into the server's policy; throws with the store's reason when refused. */
  persistRoot: (server: string, root: Root) => Promise<void>;
  timeoutMs?: number;
}

export class FolderInbox {
  private readonly entries = new Map<string, Entry>();
  private readonly events = new EventEmitter();

  constructor(private readonly o: FolderInboxOptions) {}

  /**
   * Asks about `path` for one session; resolves with how it ended. A folder already waiting for
   * that session shares its grant; past `MAX_PENDING_FOLDERS` the answer is `refused` at once.
   */
  request(req: {
    server: string;
    instance: string;
    client: string;
    path: string;
  }): Promise<FolderOutcome> {
    const existing = [...this.entries.values()].find(
      (e) => e.grant.instance === req.instance && e.grant.path === req.path,
    );
    if (existing) {
      const first = existing.resolve;
      return new Promise((resolve) => {
        existing.resolve = (o) => {
          first(o);
          resolve(o);
        };
      });
    }
    if (this.pending().filter((g) => g.instance === req.instance).length >= MAX_PENDING_FOLDERS)
      return Promise.resolve('refused');
    const timeoutMs = this.o.timeoutMs ?? FOLDER_GRANT_TIMEOUT_MS;
    const now = Date.now();
    const grant: PendingFolderGrant = {
      id: `f-${randomUUID()}`,
      server: req.server,
      instance: req.instance,
      client: req.client,
      path: req.path,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
    };
    this.o.audit({
      kind: 'folder.requested',
      outcome: 'info',
      server: grant.server,
      instance: grant.instance,
      grantId: grant.id,
      path: grant.path,
      timeoutSeconds: Math.max(1, Math.round(timeoutMs / 1000)),
    });
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.finish(grant.id, 'timeout', 'timeout'), timeoutMs);
      timer.unref();
      this.entries.set(grant.id, { grant, resolve, timer });
      this.changed();
    });
  }

  /** Folder grants waiting now, oldest first. */
  pending(): PendingFolderGrant[] {
    return [...this.entries.values()].map((e) => ({ ...e.grant }));
  }

  /** Applies a person's decision; an "always" one is saved to the policy first. */
  async decide(
    id: string,
    decision: FolderDecision,
  ): Promise<Result<PendingFolderGrant, FolderInboxError>> {
    const entry = this.entries.get(id);
    if (!entry) {
      return err({
        kind: 'unknown-grant',
        message: `no pending folder grant ${id}: it was already decided, timed out, or its session ended`,
        remedy: 'refresh the inbox',
      });
    }
    const parts = folderDecisionParts(decision);
    if (parts.allow && parts.always) {
      try {
        await this.o.persistRoot(entry.grant.server, {
          path: entry.grant.path,
          access: parts.access,
        });
      } catch (e) {
        return err({
          kind: 'persist-failed',
          message: `could not add ${entry.grant.path} to ${entry.grant.server}'s folders: ${(e as Error).message}`,
          remedy: 'choose "for this session" or "deny", or change the policy that refuses it',
        });
      }
    }
    this.finish(id, decision, 'user');
    return ok(entry.grant);
  }

  /** Ends every grant of a session that ended. */
  cancelInstance(instance: string): void {
    for (const e of [...this.entries.values()])
      if (e.grant.instance === instance) this.finish(e.grant.id, 'cancelled', 'session');
  }

  /** Subscribes to any change of the waiting list. */
  onChange(listener: (pending: PendingFolderGrant[]) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  private finish(id: string, outcome: FolderOutcome, by: 'user' | 'timeout' | 'session'): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    clearTimeout(entry.timer);
    const allowed = outcome.startsWith('allow');
    this.o.audit({
      kind: 'folder.decided',
      outcome: allowed ? 'ok' : 'refused',
      server: entry.grant.server,
      instance: entry.grant.instance,
      grantId: id,
      path: entry.grant.path,
      decision: outcome,
      by,
    });
    entry.resolve(outcome);
    this.changed();
  }

  private changed(): void {
    this.events.emit('change', this.pending());
  }
}
