/**
 * Audit records of answers already handed to the client, written once the turn's writes went
 * out: the transport writes what it was sent in one tick callback queued by the first send of the
 * turn, so one queued after it runs right behind that write. Nothing else is recorded in between:
 * the answer was the last message of its chunk, and every other record of the relay, and every
 * message it handles, records what waits first (`flush`). Only bookkeeping waits; every check ran
 * before the send.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';

export class TurnRecords {
  private waiting: AuditEventInput[] = [];

  constructor(private readonly audit: (event: AuditEventInput) => void) {}

  /** Records `event` right behind this turn's writes. */
  defer(event: AuditEventInput): void {
    if (this.waiting.length === 0) process.nextTick(this.flush);
    this.waiting.push(event);
  }

  /** Records what waits now; the relay calls it before it records or handles anything else. */
  readonly flush = (): void => {
    if (this.waiting.length === 0) return;
    const events = this.waiting;
    this.waiting = [];
    for (const event of events) this.audit(event);
  };
}
