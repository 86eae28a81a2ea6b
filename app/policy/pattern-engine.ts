/**
 * The engine of `match=` patterns: re2js (RE2 syntax, linear-time matching), loaded only where
 * a pattern is compiled. It is by far the largest module the policy code holds (277 KB), and the
 * core that goes on with a session started without a running core loads beside the server's own
 * start, where every millisecond of CPU delays the server's first answer on a machine with few
 * cores: a policy without `match=` rules never loads it there. The policy schema, which checks
 * patterns synchronously wherever a policy is validated, holds it outright (`setPatternEngine`);
 * the gateway loads it before it compiles a policy's patterns (`loadPatternEngine`). A pattern
 * compiled without it is refused as invalid: its rule refuses calls, never lets them through.
 */
import type { RE2JS } from 're2js';

type Engine = typeof RE2JS;
let engine: Engine | undefined;

/** Makes `e` the engine (for code that imports re2js outright). */
export function setPatternEngine(e: Engine): void {
  engine = e;
}

/** Loads the engine, once. */
export async function loadPatternEngine(): Promise<void> {
  engine ??= (await import('re2js')).RE2JS;
}

/** The engine, if it has been loaded. */
export function patternEngine(): Engine | undefined {
  return engine;
}

/** Whether any of these rule texts is a `match=` pattern (compiling it needs the engine). */
export function needsPatternEngine(rules: Iterable<string>): boolean {
  for (const rule of rules) if (rule.startsWith('match=')) return true;
  return false;
}
