/**
 * Egress flags of `warden exec` beside the shared policy flags: `--resolve NAME:ADDR` pins a
 * name's answer on the host (like curl's `--resolve`; `NAME:PORT:ADDR` pins one port only), so
 * that tests and users can reach a name without DNS. Also checks `--allow` / `--deny` /
 * `--allow-address` values with the same parser the broker uses, so a bad pattern is a usage
 * error naming the flag, not a launch that fails later.
 */
import { parseIp } from '../../app/policy/network-address';
import { addressProblem, parsePattern, patternProblem } from '../../app/policy/network-patterns';
import type { NetworkPolicy } from '../../app/policy/policy-schema';
import { UsageError } from '../cli/cli-io';
import type { ResolveOverride } from './resolve-destination';

export const EGRESS_FLAGS_HELP = `Egress flags:
  --resolve NAME:ADDR       answer NAME with ADDR on the host, like curl's --resolve (repeatable;
                            NAME:PORT:ADDR for one port only; IPv6 as NAME:[::1])`;

/** Parses one `--resolve` value. Throws UsageError. */
export function parseResolveFlag(value: string): ResolveOverride {
  const m = /^([^:[\]]+):(?:([0-9]{1,5}):)?(\[[^\]]+\]|[^:[\]]+)$/.exec(value.trim());
  const usage = `--resolve: expected NAME:ADDR or NAME:PORT:ADDR (IPv6 in brackets), got "${value}"`;
  if (!m) throw new UsageError(usage);
  const name = m[1]!.toLowerCase().replace(/\.$/, '');
  const pattern = parsePattern(name);
  if (!pattern.ok || pattern.value.kind !== 'host')
    throw new UsageError(`--resolve: "${m[1]}" is not a host name`);
  const ip = parseIp(m[3]!);
  if (!ip) throw new UsageError(`--resolve: "${m[3]}" is not an IP address`);
  const address = m[3]!.replace(/^\[|\]$/g, '');
  if (m[2] === undefined) return { name, addresses: [address] };
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw new UsageError(usage);
  return { name, port, addresses: [address] };
}

/**
 * Takes `--resolve` flags out of `args` (both `--resolve V` and `--resolve=V`); the other tokens
 * are returned in order. Repeated flags for one name and port add addresses. Throws UsageError.
 */
export function parseEgressFlags(args: readonly string[]): {
  resolve: ResolveOverride[];
  rest: string[];
} {
  const resolve: ResolveOverride[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token === '--') {
      rest.push(...args.slice(i));
      break;
    }
    let value: string | undefined;
    if (token.startsWith('--resolve=')) value = token.slice('--resolve='.length);
    else if (token === '--resolve') {
      value = args[++i];
      if (value === undefined) throw new UsageError('--resolve: needs a value');
    } else {
      rest.push(token);
      continue;
    }
    const o = parseResolveFlag(value);
    const same = resolve.find((r) => r.name === o.name && r.port === o.port);
    if (same) same.addresses.push(...o.addresses);
    else resolve.push(o);
  }
  return { resolve, rest };
}

/**
 * Checks a network policy built from flags with the schema's own checks; throws UsageError naming
 * the flag of the first bad value, with the message every other door gives for that field.
 */
export function checkNetworkFlags(network: NetworkPolicy): void {
  const lists = [
    ['--allow', network.allow, patternProblem],
    ['--deny', network.deny, patternProblem],
    ['--allow-address', network.allowAddresses, addressProblem],
  ] as const;
  for (const [flag, list, problem] of lists) {
    for (const text of list) {
      const found = problem(text);
      if (found !== undefined) throw new UsageError(`${flag} "${text}": ${found}`);
    }
  }
}
