/**
 * Resolution on the host, for allowed names only: pinned answers (`--resolve NAME:ADDR`) first,
 * then the system resolver. Every address is then checked against the private-address rule, and
 * the broker connects to an address it checked, so a later DNS answer cannot change the target.
 */
import { lookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { type IpAddress, formatIp, parseIp } from '../../app/policy/network-address';
import {
  type CompiledRules,
  type Destination,
  checkAddress,
} from '../../app/policy/network-patterns';

/** A pinned answer, like curl's `--resolve`; without `port` it applies to every port. */
export interface ResolveOverride {
  name: string;
  port?: number;
  addresses: string[];
}

export type Lookup = (name: string) => Promise<string[]>;

/** The system resolver: every address, in the order the system prefers. */
export const systemLookup: Lookup = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

let warmed = false;

/** How long after a broker starts the resolver is warmed: past the launch and the core's load. */
const WARM_AFTER_MS = 300;

/**
 * Warms the system resolver once per process, a moment after the first broker starts (off the
 * launch's path), with a name the hosts file answers (no query leaves the machine). A process's
 * first lookup costs some 13 ms on a 2-core machine, on the way of a server's first connection:
 * `dns.lookup` checks every name with `net.isIP`, whose IPv6 pattern V8 compiles at its first
 * use (8 ms) and again to machine code at its second (2 ms), and the name-service modules are
 * loaded and configured (3 ms).
 */
export function warmSystemLookup(): void {
  if (warmed) return;
  warmed = true;
  setTimeout(() => {
    isIPv6('localhost');
    isIPv6('localhost');
    lookup('localhost', { all: true, verbatim: true }).catch(() => undefined);
  }, WARM_AFTER_MS).unref();
}

export type Resolution =
  | { ok: true; addresses: IpAddress[]; rule?: string }
  | { ok: false; reason: 'resolve-failed' | 'address-blocked'; address?: string; message: string };

/** Resolves a destination and keeps only addresses the policy lets it reach. */
export async function resolveDestination(
  dest: Destination,
  rules: CompiledRules,
  overrides: readonly ResolveOverride[],
  resolver: Lookup,
): Promise<Resolution> {
  let candidates: IpAddress[];
  if (dest.kind === 'ip') {
    candidates = [dest.ip];
  } else {
    const pinned = overrides.find(
      (o) => o.name === dest.host && (o.port === undefined || o.port === dest.port),
    );
    let texts: string[];
    try {
      texts = pinned ? pinned.addresses : await resolver(dest.host);
    } catch (e) {
      const code = (e as { code?: string }).code ?? (e as Error).message;
      return {
        ok: false,
        reason: 'resolve-failed',
        message: `cannot resolve ${dest.host} on the host (${code})`,
      };
    }
    candidates = texts.flatMap((t) => {
      const ip = parseIp(t);
      return ip ? [ip] : [];
    });
    if (candidates.length === 0) {
      return { ok: false, reason: 'resolve-failed', message: `${dest.host} has no usable address` };
    }
  }
  const allowed: IpAddress[] = [];
  let rule: string | undefined;
  let firstBlocked: { ip: IpAddress; cls: string } | undefined;
  for (const ip of candidates) {
    const v = checkAddress(rules, ip);
    if (v.allowed) {
      allowed.push(ip);
      rule ??= v.rule;
    } else {
      firstBlocked ??= { ip, cls: v.addressClass };
    }
  }
  if (allowed.length > 0)
    return rule ? { ok: true, addresses: allowed, rule } : { ok: true, addresses: allowed };
  const addr = formatIp(firstBlocked!.ip);
  const what = dest.kind === 'ip' ? addr : `${dest.host} resolves to ${addr}, which`;
  return {
    ok: false,
    reason: 'address-blocked',
    address: addr,
    message: `${what} is a ${firstBlocked!.cls} address, refused unless listed in network.allowAddresses (--allow-address ${addr})`,
  };
}
