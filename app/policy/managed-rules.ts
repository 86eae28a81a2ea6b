/** Whether a server's allowed destinations reach into what a deny list refuses. */
import { type DestinationPattern, parsePattern } from './network-patterns';

const coversName = (domain: string, host: string) => host === domain || host.endsWith(`.${domain}`);

/** True when some destination matches both patterns. */
export function patternsOverlap(a: DestinationPattern, b: DestinationPattern): boolean {
  if (a.port !== undefined && b.port !== undefined && a.port !== b.port) return false;
  if (a.kind === 'ip' || b.kind === 'ip') return a.kind === b.kind && a.text === b.text;
  if (a.kind === 'host' && b.kind === 'host') return a.host === b.host;
  if (a.kind === 'host' && b.kind === 'subdomains') return a.host.endsWith(`.${b.domain}`);
  if (a.kind === 'subdomains' && b.kind === 'host') return b.host.endsWith(`.${a.domain}`);
  if (a.kind === 'subdomains' && b.kind === 'subdomains')
    return coversName(a.domain, b.domain) || coversName(b.domain, a.domain);
  return false;
}

/**
 * The first allowed pattern that a denied pattern overlaps, for refusing a grant the managed
 * layer forbids. A pattern that does not parse is compared by its text.
 */
export function managedAllowConflicts(
  allow: readonly string[],
  deny: readonly string[],
): { allow: string; deny: string } | undefined {
  for (const a of allow) {
    const pa = parsePattern(a);
    for (const d of deny) {
      const pd = parsePattern(d);
      const overlap = pa.ok && pd.ok ? patternsOverlap(pa.value, pd.value) : a === d;
      if (overlap) return { allow: a, deny: d };
    }
  }
  return undefined;
}
