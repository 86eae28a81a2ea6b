/**
 * What to do when a server crashes: restart it after a backoff that doubles with each crash in
 * the window, or give up once it crashed more often than allowed within that window.
 */
export type CrashVerdict =
  | { kind: 'restart'; afterMs: number }
  | { kind: 'give-up'; crashes: number; windowSeconds: number };

export class CrashPolicy {
  private crashes: number[] = [];

  constructor(
    private readonly maxRestarts = 3,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash and says what to do about it. */
  crashed(): CrashVerdict {
    const at = this.now();
    this.crashes = [...this.crashes.filter((t) => at - t < this.windowMs), at];
    if (this.crashes.length > this.maxRestarts) {
      return {
        kind: 'give-up',
        crashes: this.crashes.length,
        windowSeconds: Math.round(this.windowMs / 1000),
      };
    }
    return { kind: 'restart', afterMs: Math.min(250 * 2 ** (this.crashes.length - 1), 5_000) };
  }

  /** Forgets earlier crashes (the user restarted the instance). */
  reset(): void {
    this.crashes = [];
  }
}
