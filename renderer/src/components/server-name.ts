/** Naming a duplicate: `NAME-copy`, then `NAME-copy-2`, … the first one not taken. */

/** The first free copy name for `name` among `taken`, within the 64-character limit. */
export function copyName(name: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '-copy' : `-copy-${n}`;
    const candidate = name.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
