/** Whole seconds until a deadline, for the inbox countdowns. */

/** Whole seconds from `now` (ms) until `until` (ISO 8601), never negative. */
export function secondsLeft(until: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(until) - now) / 1000));
}
