/**
 * Destination patterns and network decisions (docs/architecture.md, "The policy"): `host`,
 * `*.domain` (subdomains only), optional `:port`, IPv4 literals, IPv6 in brackets. Matching is
 * case-insensitive and deny wins. Patterns that would allow far too much (`*`, `*.com`) or that
 * are not patterns at all (URLs, paths, ranges) are rejected with a message saying what to write.
 */
import { type Result, err, ok } from '../result';
import {
  type AddressClass,
  type IpAddress,
  type IpRange,
  classifyAddress,
  formatIp,
  parseIpRange,
  parseIpv4,
  parseIpv6,
  rangeContains,
} from './network-address';
import type { FieldError } from './validate';

export type DestinationPattern = { text: string; port?: number } & (
  | { kind: 'host'; host: string }
  | { kind: 'subdomains'; domain: string }
  | { kind: 'ip'; ip: IpAddress }
);

/** A pattern or destination that cannot be used, with what to write instead. */
export interface PatternError {
  kind: 'invalid-pattern';
  pattern: string;
  message: string;
  remedy: string;
}

/** A destination as a client asked for it, normalized: lower-case name or parsed IP. */
export type Destination = { port: number } & (
  { kind: 'name'; host: string } | { kind: 'ip'; host: string; ip: IpAddress }
);

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

function bad(pattern: string, message: string, remedy: string): Result<never, PatternError> {
  return err({ kind: 'invalid-pattern', pattern, message, remedy });
}

function hostKind(host: string): { kind: 'name' } | { kind: 'ip'; ip: IpAddress } | string {
  if (host.startsWith('[')) {
    const ip = host.endsWith(']') ? parseIpv6(host.slice(1, -1)) : undefined;
    return ip ? { kind: 'ip', ip } : 'is not a valid IPv6 address';
  }
  if (host.includes(':')) return 'IPv6 addresses must be written in brackets, e.g. [2001:db8::1]';
  const labels = host.split('.');
  if (/^(0x[0-9a-f]*|[0-9]+)$/.test(labels[labels.length - 1] ?? '')) {
    const ip = parseIpv4(host);
    return ip ? { kind: 'ip', ip } : 'is not a valid IPv4 address (write four decimal numbers)';
  }
  if (host.length > 253 || !labels.every((l) => LABEL.test(l))) {
    return 'is not a valid host name (letters, digits, "-" and "_" between dots; use xn-- for IDN)';
  }
  return { kind: 'name' };
}

function splitPort(text: string): { host: string; port?: number } | string {
  const m = /^(\[[^\]]*\]|[^:[\]]*):([^:]*)$/.exec(text);
  if (!m) return { host: text };
  const port = m[2]!;
  if (!/^[1-9][0-9]{0,4}$/.test(port) || Number(port) > 65535) {
    return 'has a port that is not a number from 1 to 65535';
  }
  return { host: m[1]!, port: Number(port) };
}

/** Parses one `network.allow` / `network.deny` pattern. */
export function parsePattern(input: string): Result<DestinationPattern, PatternError> {
  const text = input.trim().toLowerCase();
  const example = 'e.g. api.example.com, *.example.com:443, 203.0.113.7 or [2001:db8::1]:8080';
  if (text === '') return bad(input, 'is empty', `write a host pattern, ${example}`);
  if (text.includes('://'))
    return bad(input, 'is a URL, not a host pattern', `write only the host, ${example}`);
  if (/[\s/@?#\\]/.test(text)) {
    const range = text.includes('/') && parseIpRange(text) !== undefined;
    return range
      ? bad(
          input,
          'is an address range, which belongs in network.allowAddresses',
          'put private ranges in network.allowAddresses (--allow-address)',
        )
      : bad(input, 'contains a path, user or space', `write only the host, ${example}`);
  }
  const split = splitPort(text);
  if (typeof split === 'string') return bad(input, split, `write the port as :443, ${example}`);
  const host = split.host.endsWith('.') ? split.host.slice(0, -1) : split.host;
  const base = split.port === undefined ? { text } : { text, port: split.port };
  if (host === '*') return bad(input, 'would allow every host', `name the hosts, ${example}`);
  if (host.startsWith('*.')) {
    const domain = host.slice(2);
    if (domain.includes('*'))
      return bad(input, 'has more than one "*"', `use one leading *., ${example}`);
    const kind = hostKind(domain);
    if (typeof kind === 'string' || kind.kind === 'ip') {
      return bad(
        input,
        `has a wildcard over something that is not a domain`,
        `write *.example.com`,
      );
    }
    if (!domain.includes('.')) {
      return bad(
        input,
        `would allow every host under ".${domain}"`,
        'name a domain with at least two labels, e.g. *.example.com',
      );
    }
    return ok({ ...base, kind: 'subdomains', domain });
  }
  if (host.includes('*')) {
    return bad(
      input,
      'uses "*" other than as a leading "*." ',
      `wildcards are only *.domain, ${example}`,
    );
  }
  const kind = hostKind(host);
  if (typeof kind === 'string') return bad(input, kind, example);
  return ok(
    kind.kind === 'ip' ? { ...base, kind: 'ip', ip: kind.ip } : { ...base, kind: 'host', host },
  );
}

/** Normalizes a destination requested by a client (CONNECT target, SOCKS address). */
export function parseDestination(host: string, port: number): Result<Destination, PatternError> {
  const shown = `${host}:${port}`;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return bad(shown, 'has an invalid port', 'use a port from 1 to 65535');
  let h = host.trim().toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h.includes(':') && !h.startsWith('[')) h = `[${h}]`;
  const kind = hostKind(h);
  if (typeof kind === 'string')
    return bad(shown, `destination ${kind}`, 'ask for a host name or an IP address');
  if (kind.kind === 'ip') return ok({ kind: 'ip', host: formatIp(kind.ip), ip: kind.ip, port });
  return ok({ kind: 'name', host: h, port });
}

function sameIp(a: IpAddress, b: IpAddress): boolean {
  return a.family === b.family && a.bytes.every((x, i) => x === b.bytes[i]);
}

/** True when the pattern covers the destination. */
export function patternMatches(p: DestinationPattern, d: Destination): boolean {
  if (p.port !== undefined && p.port !== d.port) return false;
  switch (p.kind) {
    case 'host':
      return d.kind === 'name' && d.host === p.host;
    case 'subdomains':
      return d.kind === 'name' && d.host.endsWith(`.${p.domain}`);
    case 'ip':
      return d.kind === 'ip' && sameIp(p.ip, d.ip);
  }
}

/** The pattern "always" saves for a destination: exactly this host and port. */
export function patternForDestination(d: Destination): string {
  const host = d.kind === 'ip' && d.ip.family === 6 ? `[${d.host}]` : d.host;
  return `${host}:${d.port}`;
}

/** Network rules parsed once per instance. */
export interface CompiledRules {
  allow: DestinationPattern[];
  deny: DestinationPattern[];
  allowAddresses: { text: string; range: IpRange }[];
  /** Allowlists of the guard layers: a destination must match a pattern of each. */
  within?: { layer: string; allow: DestinationPattern[] }[];
}

/** What is wrong with a destination pattern and what to write instead, or undefined. */
export function patternProblem(text: string): string | undefined {
  const r = parsePattern(text);
  return r.ok ? undefined : `${r.error.message}; ${r.error.remedy}`;
}

/** What is wrong with an allowed address or range, or undefined when it is one. */
export function addressProblem(text: string): string | undefined {
  return parseIpRange(text.trim())
    ? undefined
    : 'is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1)';
}

/** A field's message for a bad entry: the text as written, then its problem. */
export function entryMessage(text: string, problem: string): string {
  return `"${text}" ${problem}`;
}

/**
 * Parses every pattern of a network policy; any invalid one fails the whole set (fail closed).
 * A policy that passed `policySchema` always compiles: the schema asks the same questions.
 */
export function compileRules(network: {
  allow: readonly string[];
  deny: readonly string[];
  allowAddresses: readonly string[];
  within?: readonly { layer: string; allow: readonly string[] }[];
}): Result<CompiledRules, FieldError[]> {
  const errors: FieldError[] = [];
  const parseAll = (list: readonly string[], field: string): DestinationPattern[] =>
    list.flatMap((text, i) => {
      const r = parsePattern(text);
      if (r.ok) return [r.value];
      errors.push({
        field: `network.${field}[${i}]`,
        message: entryMessage(text, patternProblem(text) ?? ''),
      });
      return [];
    });
  const allow = parseAll(network.allow, 'allow');
  const deny = parseAll(network.deny, 'deny');
  const allowAddresses = network.allowAddresses.flatMap((text, i) => {
    const range = parseIpRange(text.trim());
    if (range) return [{ text: text.trim(), range }];
    errors.push({
      field: `network.allowAddresses[${i}]`,
      message: entryMessage(text, addressProblem(text) ?? ''),
    });
    return [];
  });
  const within = (network.within ?? []).map((w) => ({
    layer: w.layer,
    allow: parseAll(w.allow, `within.${w.layer}`),
  }));
  if (errors.length > 0) return err(errors);
  return ok({ allow, deny, allowAddresses, ...(network.within ? { within } : {}) });
}

/** What the rules say about a destination before resolution. */
export type RuleVerdict = { verdict: 'allow' | 'deny'; rule: string } | { verdict: 'unknown' };

/** Deny wins; then allow; `extraAllow` holds grants made at runtime (session, once). */
export function decideDestination(
  rules: CompiledRules,
  d: Destination,
  extraAllow: readonly DestinationPattern[] = [],
): RuleVerdict {
  const denied = rules.deny.find((p) => patternMatches(p, d));
  if (denied) return { verdict: 'deny', rule: `deny ${denied.text}` };
  const outside = rules.within?.find((w) => !w.allow.some((p) => patternMatches(p, d)));
  if (outside) return { verdict: 'deny', rule: `${outside.layer} network.allow` };
  const allowed = rules.allow.find((p) => patternMatches(p, d));
  if (allowed) return { verdict: 'allow', rule: `allow ${allowed.text}` };
  const granted = extraAllow.find((p) => patternMatches(p, d));
  if (granted) return { verdict: 'allow', rule: `session grant ${granted.text}` };
  return { verdict: 'unknown' };
}

/** Whether a resolved address may be connected to: public, or named in allowAddresses. */
export type AddressVerdict =
  { allowed: true; rule?: string } | { allowed: false; addressClass: AddressClass };

/** Checks a resolved address; private, loopback, link-local and metadata need allowAddresses. */
export function checkAddress(rules: CompiledRules, ip: IpAddress): AddressVerdict {
  const addressClass = classifyAddress(ip);
  if (addressClass === 'public') return { allowed: true };
  const listed = rules.allowAddresses.find((a) => rangeContains(a.range, ip));
  if (listed) return { allowed: true, rule: `allowAddresses ${listed.text}` };
  return { allowed: false, addressClass };
}
