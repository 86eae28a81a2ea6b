/**
 * Bounds host-side name lookups. `dns.lookup` (getaddrinfo, so that /etc/hosts and the system's
 * resolver configuration apply) runs on libuv's small thread pool, which file I/O shares, and a
 * lookup cannot be cancelled. Without a bound, one server asking for many slow names could stall
 * every other instance and the app. So: at most `perInstance` lookups of one instance run at
 * once, at most `total` overall; a caller stops waiting after `timeoutMs` (the lookup itself
 * keeps its slot until it really returns).
 */
import type { Lookup } from './resolve-destination';

class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  acquire(): Promise<void> {
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

const shared = new Slots(3);

/** Wraps `lookup` for one instance: bounded per instance and across all instances, with a timeout. */
export function limitedLookup(
  lookup: Lookup,
  opts: { perInstance?: number; timeoutMs?: number; total?: Slots } = {},
): Lookup {
  const mine = new Slots(opts.perInstance ?? 1);
  const total = opts.total ?? shared;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return (name) => {
    const run = (async () => {
      await mine.acquire();
      try {
        await total.acquire();
        try {
          return await lookup(name);
        } finally {
          total.release();
        }
      } finally {
        mine.release();
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })),
        timeoutMs,
      );
    });
    return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
  };
}

export { Slots as LookupSlots };
