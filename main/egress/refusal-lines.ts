/**
 * `warden exec`'s refusal lines on stderr, held to the same limits as the audit log: the first
 * refusal of a destination is printed at once, its repeats as one line with their count when the
 * window ends, and past a budget of lines per 10 s the rest is counted into one summary line.
 * A command that hammers a refused destination thus cannot drown the terminal, and every
 * refusal is still counted.
 */
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { showUntrusted } from '../../app/text/untrusted-text';
import { Coalescer, type Coalesced } from '../audit/coalescer';

export interface RefusalLinesOptions {
  write: (text: string) => void;
  /** Repeats within this long are one line. Default 5,000 ms. */
  windowMs?: number;
  /** Lines per 10 s before the rest is summarised. Default 20. */
  budgetLines?: number;
  now?: () => number;
}

export interface RefusalLines {
  /** Takes one decision (only refusals are printed). */
  decided(e: EgressDecisionEvent): void;
  /** Prints what is still held and stops the timer. */
  stop(): void;
}

const dest = (e: EgressDecisionEvent) =>
  showUntrusted(e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

function line(out: Coalesced<EgressDecisionEvent>, budget: number): string {
  switch (out.kind) {
    case 'single':
      return `warden: refused ${dest(out.item)}: ${showUntrusted(out.item.message ?? out.item.reason ?? '')}\n`;
    case 'repeat': {
      const s = Math.max(0, (Date.parse(out.last.at) - Date.parse(out.first.at)) / 1000);
      return `warden: refused ${dest(out.first)} ${out.count} more time${out.count === 1 ? '' : 's'} in ${s.toFixed(1)} s\n`;
    }
    case 'summary': {
      const named = out.groups.map((g) => `${dest(g.sample)} ×${g.count}`);
      if (out.otherCount > 0) named.push(`others ×${out.otherCount}`);
      return `warden: ${out.count} more refusals not shown (more than ${budget} lines in 10 s): ${named.join(', ')}\n`;
    }
  }
}

/** Starts printing refusals through `write`. */
export function refusalLines(o: RefusalLinesOptions): RefusalLines {
  const budget = o.budgetLines ?? 20;
  const c = new Coalescer<EgressDecisionEvent>({
    keyOf: (e) => `${e.host}\0${e.port}`,
    holderOf: () => '',
    emit: (out) => o.write(line(out, budget)),
    windowMs: o.windowMs ?? 5000,
    budget,
    budgetMs: 10_000,
    summaryKeys: 8,
    ...(o.now ? { now: o.now } : {}),
  });
  const timer = setInterval(() => c.tick(), 1000);
  timer.unref();
  return {
    decided: (e) => {
      if (e.decision === 'refused' && e.reason !== 'ask-timeout') c.offer(e);
    },
    stop: () => {
      clearInterval(timer);
      c.drain();
    },
  };
}
