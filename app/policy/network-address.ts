/**
 * IP addresses parsed by hand (app/ has no `net` module): literals, CIDR ranges, and the classes
 * of address a sandboxed server may not reach unless the policy names them (loopback, private,
 * link-local, cloud metadata, …). Strict on purpose: no octal, hex or shortened IPv4 forms.
 */

/** A parsed address: 4 bytes for IPv4, 16 for IPv6. */
export interface IpAddress {
  family: 4 | 6;
  bytes: readonly number[];
}

/** An address range; a single address is a range with the full prefix length. */
export interface IpRange {
  family: 4 | 6;
  bytes: readonly number[];
  prefix: number;
}

/** Why an address is not public; `public` is the only class reachable without allowAddresses. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

/** Parses a dotted-quad IPv4 literal (four decimal octets, no leading zeros). */
export function parseIpv4(text: string): IpAddress | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return { family: 4, bytes };
}

function parseHextets(text: string): number[] | undefined {
  if (text === '') return [];
  const out: number[] = [];
  const groups = text.split(':');
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    if (i === groups.length - 1 && g.includes('.')) {
      const v4 = parseIpv4(g);
      if (!v4) return undefined;
      const [a, b, c, d] = v4.bytes as [number, number, number, number];
      out.push((a << 8) | b, (c << 8) | d);
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
  }
  return out;
}

/** Parses an IPv6 literal without brackets or zone (`::1`, `2001:db8::5`, `::ffff:1.2.3.4`). */
export function parseIpv6(text: string): IpAddress | undefined {
  if (text.length === 0 || text.length > 45 || text.includes('%')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  let words: number[];
  if (halves.length === 2) {
    const head = parseHextets(halves[0]!);
    const tail = parseHextets(halves[1]!);
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = parseHextets(text);
    if (!all || all.length !== 8) return undefined;
    words = all;
  }
  return { family: 6, bytes: words.flatMap((w) => [w >> 8, w & 0xff]) };
}

/** Parses an IPv4 or IPv6 literal (IPv6 with or without brackets). */
export function parseIp(text: string): IpAddress | undefined {
  if (text.startsWith('[') && text.endsWith(']')) return parseIpv6(text.slice(1, -1));
  return parseIpv4(text) ?? parseIpv6(text);
}

/** Canonical text: dotted quad, or RFC 5952 compressed lower-case IPv6. */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return ip.bytes.join('.');
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((ip.bytes[i]! << 8) | ip.bytes[i + 1]!);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart < 0) return hex.join(':');
  const head = hex.slice(0, bestStart).join(':');
  const tail = hex.slice(bestStart + bestLen).join(':');
  return `${head}::${tail}`;
}

/** Parses `ADDR` or `ADDR/PREFIX` (IPv6 optionally in brackets); host bits must be zero. */
export function parseIpRange(text: string): IpRange | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip) return undefined;
  const max = ip.family === 4 ? 32 : 128;
  if (slash < 0) return { ...ip, prefix: max };
  const p = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > max) return undefined;
  const range = { ...ip, prefix: Number(p) };
  return hostBitsZero(range) ? range : undefined;
}

function hostBitsZero(range: IpRange): boolean {
  for (let bit = range.prefix; bit < range.bytes.length * 8; bit++) {
    if ((range.bytes[bit >> 3]! >> (7 - (bit & 7))) & 1) return false;
  }
  return true;
}

/** True when `ip` is inside `range` (same family only; mapped IPv4 is unwrapped first). */
export function rangeContains(range: IpRange, ip: IpAddress): boolean {
  const addr = unwrapMappedIpv4(ip);
  if (range.family !== addr.family) return false;
  for (let bit = 0; bit < range.prefix; bit++) {
    const mask = 1 << (7 - (bit & 7));
    if ((range.bytes[bit >> 3]! & mask) !== (addr.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** `::ffff:a.b.c.d` and NAT64 `64:ff9b::a.b.c.d` are treated as the IPv4 address they carry. */
export function unwrapMappedIpv4(ip: IpAddress): IpAddress {
  if (ip.family !== 6) return ip;
  const b = ip.bytes;
  const zeros = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 10) && b[10] === 0xff && b[11] === 0xff;
  const nat64 = b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12);
  return mapped || nat64 ? { family: 4, bytes: b.slice(12) } : ip;
}

const table: ReadonlyArray<[string, AddressClass]> = [
  ['169.254.169.254/32', 'metadata'],
  ['100.100.100.200/32', 'metadata'],
  ['fd00:ec2::254/128', 'metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'private'],
  ['169.254.0.0/16', 'link-local'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
  ['fc00::/7', 'private'],
  ['ff00::/8', 'multicast'],
  ['2001:db8::/32', 'reserved'],
  ['2002::/16', 'reserved'],
  ['::/96', 'reserved'],
];
const classRanges: ReadonlyArray<[IpRange, AddressClass]> = table.map(([r, c]) => [
  parseIpRange(r)!,
  c,
]);

/** The class of an address; anything not listed as special is `public`. */
export function classifyAddress(ip: IpAddress): AddressClass {
  for (const [range, cls] of classRanges) if (rangeContains(range, ip)) return cls;
  return 'public';
}
