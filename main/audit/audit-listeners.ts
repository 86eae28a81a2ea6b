/**
 * Who is told of the rows the store writes (the core's live views): each listener with whether
 * it wants rows now, so that the writer reads rows back only while someone does. A listener that
 * throws is reported and the others are still told.
 */
import type { AuditRow } from '../../app/audit/audit-row';

export class RowListeners {
  private readonly listeners = new Map<(rows: AuditRow[]) => void, () => boolean>();

  constructor(private readonly onError: (error: unknown) => void) {}

  add(listener: (rows: AuditRow[]) => void, wanted?: () => boolean): () => void {
    this.listeners.set(listener, wanted ?? (() => true));
    return () => void this.listeners.delete(listener);
  }

  /** Whether any listener wants rows now. */
  wanted(): boolean {
    for (const wanted of this.listeners.values()) if (wanted()) return true;
    return false;
  }

  notify(rows: AuditRow[]): void {
    for (const listener of [...this.listeners.keys()]) {
      try {
        listener(rows);
      } catch (e) {
        this.onError(e);
      }
    }
  }
}
