/**
 * Tells a session when its server has been idle for the policy's `idleTimeoutSeconds`, so that
 * an unused server does not hold its sandbox, and records that limit in the audit log. The timer
 * is armed once and, when it fires, looks at the last activity: a timer per message would cost
 * more than relaying it.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';

/** Warden stopped an instance that was idle for its `idleTimeoutSeconds`. */
export function idleLimitEvent(server: string, instance: string): AuditEventInput {
  return { kind: 'limit.hit', outcome: 'info', server, instance, limit: 'idleTimeoutSeconds' };
}

export class IdleTimer {
  private timer: NodeJS.Timeout | undefined;
  /** The idle timeout the timer was armed with, and when the session last saw traffic. */
  private idleMs = NaN;
  private lastActivity = 0;

  constructor(
    /** The idle timeout in effect, in seconds; none when the server is gone. */
    private readonly timeoutSeconds: () => number | undefined,
    private readonly onIdle: () => void,
  ) {}

  /** Notes traffic (every message); arms the timer if none runs or the timeout changed. */
  touch(): void {
    this.lastActivity = performance.now();
    const ms = (this.timeoutSeconds() ?? NaN) * 1000;
    if (this.timer && ms === this.idleMs) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.idleMs = ms;
    if (!Number.isNaN(ms)) this.arm(ms);
  }

  /** Stops the timer (the session ended). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(this.onTimer, ms);
    this.timer.unref();
  }

  private readonly onTimer = () => {
    this.timer = undefined;
    const left = this.lastActivity + this.idleMs - performance.now();
    if (left > 0) this.arm(left);
    else this.onIdle();
  };
}
