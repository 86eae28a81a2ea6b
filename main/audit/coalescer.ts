/**
 * Coalescing and a rate budget for records a hostile party can produce at will (refused
 * connections, sandbox refusals). The first record of a key goes out at once; repeats of that key
 * within `windowMs` go out as one record with their count and first and last item when the
 * window ends (and the window goes on while the key stays busy). Each budget holder (an instance)
 * may put out `budget` records per `budgetMs`; past that, records are counted into one summary per
 * holder per budget window, by key (the first `summaryKeys` keys named, the rest counted
 * together). Nothing is dropped: every item offered is in exactly one output's count.
 *
 * Memory is bounded: open keys per holder are capped (`budget` × 4), and summaries name a bounded
 * number of keys. Time comes from `now()`; `tick()` closes what is due and `drain()` closes all.
 */

/** What the coalescer puts out. */
export type Coalesced<T> =
  | { kind: 'single'; item: T }
  | { kind: 'repeat'; merged: T; first: T; last: T; count: number }
  | {
      kind: 'summary';
      holder: string;
      count: number;
      first: T;
      last: T;
      groups: { key: string; count: number; sample: T }[];
      otherCount: number;
    };

export interface CoalescerOptions<T> {
  /** The repeat key of an item; `undefined` for items that pass through untouched. */
  keyOf(item: T): string | undefined;
  /** Whose budget an item is charged to. */
  holderOf(item: T): string;
  /** Folds a repeat into the merged item of its key (default: keep the first). */
  merge?(merged: T, next: T): T;
  emit(out: Coalesced<T>): void;
  windowMs: number;
  budget: number;
  budgetMs: number;
  summaryKeys?: number;
  now?: () => number;
}

interface KeyState<T> {
  holder: string;
  windowEnd: number;
  count: number;
  merged?: T;
  first?: T;
  last?: T;
}

interface Summary<T> {
  count: number;
  first: T;
  last: T;
  groups: Map<string, { count: number; sample: T }>;
  otherCount: number;
}

interface Holder<T> {
  id: string;
  windowEnd: number;
  used: number;
  keys: number;
  summary?: Summary<T>;
}

export class Coalescer<T> {
  private readonly keys = new Map<string, KeyState<T>>();
  private readonly holders = new Map<string, Holder<T>>();
  private readonly now: () => number;

  constructor(private readonly o: CoalescerOptions<T>) {
    this.now = o.now ?? Date.now;
  }

  /** Whether `item` may be held (coalesced or summarised) rather than put out at once. */
  mayHold(item: T): boolean {
    return this.o.keyOf(item) !== undefined;
  }

  /** Takes one item: puts it out now, holds it as a repeat, or counts it into a summary. */
  offer(item: T): void {
    const key = this.o.keyOf(item);
    if (key === undefined) return this.o.emit({ kind: 'single', item });
    const now = this.now();
    const holderId = this.o.holderOf(item);
    const holder = this.holder(holderId, now);
    let state = this.keys.get(key);
    if (state && now >= state.windowEnd) {
      this.close(key, state, now);
      state = this.keys.get(key);
    }
    if (state) {
      state.count += 1;
      state.merged =
        state.merged === undefined ? item : (this.o.merge?.(state.merged, item) ?? state.merged);
      state.first ??= item;
      state.last = item;
      return;
    }
    if (holder.used < this.o.budget && holder.keys < this.o.budget * 4) {
      holder.used += 1;
      holder.keys += 1;
      this.keys.set(key, { holder: holderId, windowEnd: now + this.o.windowMs, count: 0 });
      this.o.emit({ kind: 'single', item });
      return;
    }
    this.fold(holder, key, item, item, 1);
  }

  /** Closes every repeat window and budget window that has ended. */
  tick(): void {
    const now = this.now();
    for (const [key, state] of this.keys) if (now >= state.windowEnd) this.close(key, state, now);
    for (const [id, holder] of this.holders) {
      if (now < holder.windowEnd) continue;
      this.roll(holder, now);
      if (holder.keys === 0) this.holders.delete(id);
    }
  }

  /** Puts out everything held (repeats first, then summaries) and forgets all state. */
  drain(): void {
    const now = this.now();
    for (const [key, state] of this.keys) {
      this.close(key, state, now);
      this.keys.delete(key);
    }
    for (const holder of this.holders.values()) this.emitSummary(holder);
    this.keys.clear();
    this.holders.clear();
  }

  /** Items held as repeats or summarised and not put out yet. */
  heldCount(): number {
    let n = 0;
    for (const s of this.keys.values()) n += s.count;
    for (const h of this.holders.values()) n += h.summary?.count ?? 0;
    return n;
  }

  private holder(id: string, now: number): Holder<T> {
    let h = this.holders.get(id);
    if (!h) {
      h = { id, windowEnd: now + this.o.budgetMs, used: 0, keys: 0 };
      this.holders.set(id, h);
    } else if (now >= h.windowEnd) this.roll(h, now);
    return h;
  }

  private roll(h: Holder<T>, now: number): void {
    this.emitSummary(h);
    h.used = 0;
    h.windowEnd = now + this.o.budgetMs;
  }

  /** Ends a key's window: its repeats go out (or into the summary); a quiet key is forgotten. */
  private close(key: string, state: KeyState<T>, now: number): void {
    const holder = this.holder(state.holder, now);
    if (state.count === 0 || !state.merged || !state.first || !state.last) {
      this.keys.delete(key);
      holder.keys = Math.max(0, holder.keys - 1);
      return;
    }
    const { merged, first, last, count } = state;
    if (holder.used < this.o.budget) {
      holder.used += 1;
      this.o.emit({ kind: 'repeat', merged, first, last, count });
    } else this.fold(holder, key, first, last, count);
    state.count = 0;
    delete state.merged;
    delete state.first;
    delete state.last;
    state.windowEnd = now + this.o.windowMs;
  }

  private fold(h: Holder<T>, key: string, first: T, last: T, count: number): void {
    const groups = new Map<string, { count: number; sample: T }>();
    const s = (h.summary ??= { count: 0, first, last, groups, otherCount: 0 });
    s.count += count;
    s.last = last;
    const group = s.groups.get(key);
    if (group) group.count += count;
    else if (s.groups.size < (this.o.summaryKeys ?? 16))
      s.groups.set(key, { count, sample: first });
    else s.otherCount += count;
  }

  private emitSummary(h: Holder<T>): void {
    const s = h.summary;
    if (!s) return;
    delete h.summary;
    this.o.emit({
      kind: 'summary',
      holder: h.id,
      count: s.count,
      first: s.first,
      last: s.last,
      groups: [...s.groups].map(([key, g]) => ({ key, count: g.count, sample: g.sample })),
      otherCount: s.otherCount,
    });
  }
}
