/**
 * One direction of a session as a single ordered pipeline: messages are handled one after the
 * other in arrival order, so a message that waits (a tools/list answer being pinned, a slow
 * client) holds back the ones behind it instead of being overtaken. The queue is bounded by
 * back-pressure: past its high-water mark the pipeline asks its source to pause, and below half
 * of it to resume. An exception in a step is reported with its item and never escapes.
 */

/** When a pipeline asks its source to pause. */
export interface PipelineLimits {
  highWaterMessages: number;
  highWaterBytes: number;
}

export interface PipelineHooks<T> {
  step: (item: T) => Promise<void> | void;
  /** Called with `true` above the high-water mark and `false` once below half of it. */
  onPressure?: (high: boolean) => void;
  onFault: (error: unknown, item: T) => void;
}

export class OrderedPipeline<T> {
  private items: { item: T; bytes: number }[] = [];
  private head = 0;
  private running = false;
  private pressed = false;
  private closed = false;
  private idle: (() => void)[] = [];
  /** Bytes of the messages waiting (as read from the wire, or estimated). */
  queuedBytes = 0;

  constructor(
    private readonly limits: PipelineLimits,
    private readonly hooks: PipelineHooks<T>,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T, bytes: number): void {
    if (this.closed) return;
    this.items.push({ item, bytes });
    this.queuedBytes += bytes;
    if (
      !this.pressed &&
      (this.length > this.limits.highWaterMessages || this.queuedBytes > this.limits.highWaterBytes)
    ) {
      this.pressed = true;
      this.hooks.onPressure?.(true);
    }
    if (!this.running) this.run();
  }

  /** Resolves once nothing is waiting or being handled. */
  drained(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Drops what waits; later pushes are ignored. */
  close(): void {
    this.closed = true;
    this.items = [];
    this.head = 0;
    this.queuedBytes = 0;
  }

  /**
   * Handles what waits, in order. A step that finishes at once is followed by the next one in the
   * same turn; only a step that returns a promise (a write waiting for the reader, a list being
   * pinned) suspends the pipeline until it settles.
   */
  private run(): void {
    this.running = true;
    while (this.head < this.items.length) {
      const next = this.items[this.head]!;
      let pending: Promise<void> | void = undefined;
      try {
        pending = this.hooks.step(next.item);
      } catch (error) {
        this.hooks.onFault(error, next.item);
      }
      if (pending) {
        pending.then(
          () => this.resume(next),
          (error: unknown) => {
            this.hooks.onFault(error, next.item);
            this.resume(next);
          },
        );
        return;
      }
      if (!this.advance(next)) return;
    }
    this.finish();
  }

  private resume(done: { bytes: number }): void {
    if (this.advance(done)) this.run();
  }

  /** Drops the handled head; false when the pipeline was closed meanwhile. */
  private advance(done: { bytes: number }): boolean {
    if (this.closed) {
      this.finish();
      return false;
    }
    this.items[this.head] = undefined as never;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.queuedBytes -= done.bytes;
    if (
      this.pressed &&
      this.length <= this.limits.highWaterMessages / 2 &&
      this.queuedBytes <= this.limits.highWaterBytes / 2
    ) {
      this.pressed = false;
      this.hooks.onPressure?.(false);
    }
    return true;
  }

  private finish(): void {
    this.running = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
