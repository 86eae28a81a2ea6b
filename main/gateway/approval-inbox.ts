/**
 * Tool calls waiting for the user's approval. Each is refused automatically when its timeout
 * passes; every request and decision is audited.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { PendingApproval } from '../../app/contract/tools';

interface Waiting {
  approval: PendingApproval;
  resolve: (approved: boolean) => void;
  timer: NodeJS.Timeout;
}

export class ApprovalInbox {
  private readonly waiting = new Map<string, Waiting>();
  private readonly events = new EventEmitter();

  constructor(private readonly audit: (event: AuditEventInput) => void) {}

  /** The calls waiting now, oldest first. */
  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.approval);
  }

  /** Subscribes to any change of the list. */
  onChange(listener: (pending: PendingApproval[]) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  /** Holds a call until the user decides or `timeoutSeconds` pass; resolves true if approved. */
  request(input: {
    server: string;
    instance: string;
    tool: string;
    args: unknown;
    timeoutSeconds: number;
  }): Promise<boolean> {
    const id = randomUUID();
    const created = Date.now();
    const approval: PendingApproval = {
      id,
      server: input.server,
      instance: input.instance,
      tool: input.tool,
      args: input.args,
      createdAt: new Date(created).toISOString(),
      expiresAt: new Date(created + input.timeoutSeconds * 1000).toISOString(),
    };
    this.audit({
      kind: 'approval.requested',
      outcome: 'info',
      server: input.server,
      instance: input.instance,
      approvalId: id,
      tool: input.tool,
      args: input.args,
      timeoutSeconds: input.timeoutSeconds,
    });
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(
        () => this.settle(id, false, 'timeout'),
        input.timeoutSeconds * 1000,
      );
      timer.unref();
      this.waiting.set(id, { approval, resolve, timer });
      this.changed();
    });
  }

  /** The user's decision; false when no such call is waiting (already decided or expired). */
  decide(id: string, decision: 'approve' | 'deny'): boolean {
    return this.settle(id, decision === 'approve', 'user');
  }

  /** Refuses every call of an instance that is going away. */
  dropInstance(instance: string): void {
    for (const w of [...this.waiting.values()]) {
      if (w.approval.instance === instance) this.settle(w.approval.id, false, 'timeout');
    }
  }

  private settle(id: string, approved: boolean, by: 'user' | 'timeout'): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    this.audit({
      kind: 'approval.decided',
      outcome: approved ? 'ok' : 'refused',
      server: w.approval.server,
      instance: w.approval.instance,
      approvalId: id,
      tool: w.approval.tool,
      decision: approved ? 'approve' : 'deny',
      by,
    });
    w.resolve(approved);
    this.changed();
    return true;
  }

  private changed(): void {
    this.events.emit('change', this.list());
  }
}
