/**
 * Tool calls waiting for the user's approval. Each is refused automatically when its timeout
 * passes; every request and decision is audited. An approval may be remembered for the rest of
 * the instance's session (the same tool, reason and arguments) or saved to the server's policy
 * as an allowed-call pattern.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { ApprovalDecision, ApprovalReason, PendingApproval } from '../../app/contract/tools';
import { type CallPattern, callPatternProblem } from '../../app/policy/call-patterns';
import { loadPatternEngine } from '../../app/policy/pattern-engine';
import { type Result, err, ok } from '../../app/result';
import { recordedTool, recordedValue } from './wire-values';

interface Waiting {
  approval: PendingApproval;
  resolve: (approved: boolean) => void;
  timer: NodeJS.Timeout;
  /** What "for this session" remembers: tool, reason and the arguments as sent. */
  sessionKey?: string;
}

/** A decision that could not be taken as asked (nothing was decided). */
export interface ApprovalDecideError {
  kind: 'invalid-pattern' | 'not-offered' | 'persist-failed';
  message: string;
  remedy: string;
}

/** Saves an allowed-call pattern to a server's policy (through the checked policy edit). */
export type PersistCallPattern = (server: string, pattern: CallPattern) => Promise<void>;

export class ApprovalInbox {
  private readonly waiting = new Map<string, Waiting>();
  private readonly events = new EventEmitter();
  /** Per instance: the session keys approved "for this session". */
  private readonly sessions = new Map<string, Set<string>>();

  constructor(
    private readonly audit: (event: AuditEventInput) => void,
    private readonly persist?: PersistCallPattern,
  ) {}

  /** The calls waiting now, oldest first. */
  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.approval);
  }

  /** Subscribes to any change of the list. */
  onChange(listener: (pending: PendingApproval[]) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  /**
   * Holds a call until the user decides or `timeoutSeconds` pass; resolves true if approved.
   * `args` are shown (redacted by the caller); `sent` are the arguments as sent, kept only in
   * memory to recognise the same call again after "for this session"; `pattern` is offered for
   * "always".
   */
  request(input: {
    server: string;
    instance: string;
    tool: string;
    args: unknown;
    timeoutSeconds: number;
    reason?: ApprovalReason;
    sent?: string;
    pattern?: Record<string, string>;
  }): Promise<boolean> {
    const id = randomUUID();
    const reason = input.reason ?? { kind: 'tool-approval' };
    const sessionKey =
      input.sent === undefined ? undefined : `${reason.kind}\u0000${input.tool}\u0000${input.sent}`;
    if (sessionKey !== undefined && this.sessions.get(input.instance)?.has(sessionKey)) {
      this.audit({
        kind: 'approval.decided',
        outcome: 'ok',
        server: input.server,
        instance: input.instance,
        approvalId: id,
        tool: recordedTool(input.tool),
        decision: 'approve',
        by: 'session',
      });
      return Promise.resolve(true);
    }
    const created = Date.now();
    const approval: PendingApproval = {
      id,
      server: input.server,
      instance: input.instance,
      tool: input.tool,
      args: input.args,
      createdAt: new Date(created).toISOString(),
      expiresAt: new Date(created + input.timeoutSeconds * 1000).toISOString(),
      reason,
      ...(input.pattern && this.persist ? { pattern: input.pattern } : {}),
    };
    this.audit({
      kind: 'approval.requested',
      outcome: 'info',
      server: input.server,
      instance: input.instance,
      approvalId: id,
      tool: recordedTool(input.tool),
      args: recordedValue(input.args),
      timeoutSeconds: input.timeoutSeconds,
      reason: reason.kind,
      ...(reason.kind === 'credentials' ? { found: reason.found } : {}),
    });
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(
        () => this.settle(id, false, 'timeout'),
        input.timeoutSeconds * 1000,
      );
      timer.unref();
      this.waiting.set(id, { approval, resolve, timer, ...(sessionKey ? { sessionKey } : {}) });
      this.changed();
    });
  }

  /**
   * The user's decision: ok(false) when no such call is waiting (already decided or expired).
   * "Always" saves the pattern first (edited by the user, or the one offered); when that fails
   * nothing is decided and the card stays.
   */
  decide(
    id: string,
    decision: ApprovalDecision,
    edited?: Record<string, string>,
  ): Promise<Result<boolean, ApprovalDecideError>> {
    const w = this.waiting.get(id);
    if (!w) return Promise.resolve(ok(false));
    if (decision === 'deny' || decision === 'approve')
      return Promise.resolve(ok(this.settle(id, decision === 'approve', 'user')));
    if (decision === 'approve-session') {
      if (w.sessionKey === undefined) return Promise.resolve(err(notOffered('for this session')));
      let remembered = this.sessions.get(w.approval.instance);
      if (!remembered) this.sessions.set(w.approval.instance, (remembered = new Set()));
      remembered.add(w.sessionKey);
      return Promise.resolve(ok(this.settle(id, true, 'user', { remember: 'session' })));
    }
    return this.decideAlways(w, edited);
  }

  private async decideAlways(
    w: Waiting,
    edited: Record<string, string> | undefined,
  ): Promise<Result<boolean, ApprovalDecideError>> {
    const offered = w.approval.pattern;
    if (!offered || !this.persist) return err(notOffered('always'));
    const pattern: CallPattern = { tool: w.approval.tool, args: edited ?? offered };
    await loadPatternEngine();
    const problem = callPatternProblem(pattern);
    if (problem)
      return err({
        kind: 'invalid-pattern',
        message: `the pattern cannot be saved: ${problem}`,
        remedy: 'correct the argument patterns, or allow this call once',
      });
    try {
      await this.persist(w.approval.server, pattern);
    } catch (e) {
      return err({
        kind: 'persist-failed',
        message: `could not save the allowed call to ${w.approval.server}'s policy: ${(e as Error).message}`,
        remedy: 'allow the call once or for this session, or deny it',
      });
    }
    const text = Object.entries(pattern.args)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return ok(
      this.settle(w.approval.id, true, 'user', {
        remember: 'always',
        pattern: `${pattern.tool}${text ? ` ${text}` : ''}`,
      }),
    );
  }

  /**
   * Keeps only the instances in `running`: the session approvals of the others are forgotten and
   * their waiting calls refused (audited as ended by the instance, not by a decision), so no card
   * stays in the inbox for a call nobody can receive an answer to.
   */
  keepInstances(running: readonly string[]): void {
    const live = new Set(running);
    for (const instance of this.sessions.keys())
      if (!live.has(instance)) this.sessions.delete(instance);
    for (const w of [...this.waiting.values()])
      if (!live.has(w.approval.instance)) this.settle(w.approval.id, false, 'ended');
  }

  private settle(
    id: string,
    approved: boolean,
    by: 'user' | 'timeout' | 'ended',
    remembered: { remember?: 'session' | 'always'; pattern?: string } = {},
  ): boolean {
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
      tool: recordedTool(w.approval.tool),
      decision: approved ? 'approve' : 'deny',
      by,
      ...remembered,
    });
    w.resolve(approved);
    this.changed();
    return true;
  }

  private changed(): void {
    this.events.emit('change', this.list());
  }
}

function notOffered(what: string): ApprovalDecideError {
  return {
    kind: 'not-offered',
    message: `"${what}" is not offered for this call`,
    remedy: 'allow the call once, or deny it',
  };
}
