/**
 * The question the sign-in file asks before it sends a code to the per-run name: a browser that
 * does not resolve `*.localhost` itself asks its DNS server, which on a hostile network could
 * answer with its own address, receive the code, then rebind the name to 127.0.0.1 and trade
 * it. So each sign-in comes with a one-time query and the answer only Warden gives to it; the
 * file goes to the per-run name only when it read that answer back; else it says so and offers
 * 127.0.0.1 as a link, which it does not follow itself (sign-in-file.ts).
 */
import { randomBytes } from 'node:crypto';

/** One sign-in's probe: the query the file sends, the answer it expects back. */
export interface ReachableProbe {
  query: string;
  answer: string;
}

const MAX_PROBES = 64;

/** Probes that each answer once, within `ttlMs` of being issued. */
export function createProbes(ttlMs: number, now: () => number = Date.now) {
  const live = new Map<string, { answer: string; expires: number }>();
  return {
    issue(): ReachableProbe {
      for (const [query, p] of live) if (p.expires < now()) live.delete(query);
      while (live.size >= MAX_PROBES) live.delete(live.keys().next().value!);
      const probe = {
        query: randomBytes(16).toString('base64url'),
        answer: randomBytes(16).toString('base64url'),
      };
      live.set(probe.query, { answer: probe.answer, expires: now() + ttlMs });
      return probe;
    },
    /** The answer to `query`, once; undefined for an unknown, spent or expired one. */
    spend(query: string): string | undefined {
      const p = live.get(query);
      live.delete(query);
      return p && p.expires >= now() ? p.answer : undefined;
    },
  };
}
