import { describe, expect, it } from 'vitest';
import { classifyAddress, formatIp, parseIp, parseIpRange, rangeContains } from './network-address';
import {
  type CompiledRules,
  checkAddress,
  compileRules,
  decideDestination,
  parseDestination,
  parsePattern,
  patternForDestination,
} from './network-patterns';

function rules(allow: string[], deny: string[] = [], allowAddresses: string[] = []): CompiledRules {
  const r = compileRules({ allow, deny, allowAddresses });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

function dest(host: string, port: number) {
  const d = parseDestination(host, port);
  if (!d.ok) throw new Error(d.error.message);
  return d.value;
}

describe('parsePattern', () => {
  it.each([
    ['Example.COM', 'host'],
    ['example.com.', 'host'],
    ['*.example.com', 'subdomains'],
    ['*.example.com:443', 'subdomains'],
    ['api.example.com:8080', 'host'],
    ['203.0.113.7', 'ip'],
    ['[2001:db8::1]', 'ip'],
    ['[::1]:443', 'ip'],
    ['localhost', 'host'],
  ])('accepts %s as %s', (text, kind) => {
    const r = parsePattern(text);
    expect(r.ok && r.value.kind).toBe(kind);
  });

  it.each([
    ['*', /wildcard|host/],
    ['*.com', /every host under/],
    ['*.', /every host|wildcard/],
    ['foo.*.com', /other than/],
    ['*foo.com', /other than/],
    ['https://example.com', /URL/],
    ['example.com/path', /path/],
    ['user@example.com', /path, user/],
    ['10.0.0.0/8', /allowAddresses/],
    ['example.com:0', /port/],
    ['example.com:65536', /port/],
    ['example.com:http', /port/],
    ['::1', /brackets/],
    ['127.1', /IPv4/],
    ['1.2.3.256', /IPv4/],
    ['', /empty/],
    ['-bad.com', /host name/],
    ['bücher.de', /xn--/],
  ])('rejects %j with a clear error', (text, message) => {
    const r = parsePattern(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).toMatch(message);
      expect(r.error.remedy.length).toBeGreaterThan(5);
    }
  });
});

describe('decideDestination', () => {
  it('matches host exactly and case-insensitively', () => {
    const r = rules(['Api.Example.com']);
    expect(decideDestination(r, dest('API.example.COM', 443)).verdict).toBe('allow');
    expect(decideDestination(r, dest('api.example.com.', 443)).verdict).toBe('allow');
    expect(decideDestination(r, dest('x.api.example.com', 443)).verdict).toBe('unknown');
    expect(decideDestination(r, dest('example.com', 443)).verdict).toBe('unknown');
  });

  it('*.domain covers subdomains only', () => {
    const r = rules(['*.example.com']);
    expect(decideDestination(r, dest('a.example.com', 1)).verdict).toBe('allow');
    expect(decideDestination(r, dest('a.b.example.com', 1)).verdict).toBe('allow');
    expect(decideDestination(r, dest('example.com', 1)).verdict).toBe('unknown');
    expect(decideDestination(r, dest('badexample.com', 1)).verdict).toBe('unknown');
  });

  it('honours ports', () => {
    const r = rules(['example.com:443']);
    expect(decideDestination(r, dest('example.com', 443)).verdict).toBe('allow');
    expect(decideDestination(r, dest('example.com', 80)).verdict).toBe('unknown');
  });

  it('deny wins over allow and over runtime grants', () => {
    const r = rules(['*.example.com'], ['evil.example.com']);
    const v = decideDestination(r, dest('evil.example.com', 443));
    expect(v).toEqual({ verdict: 'deny', rule: 'deny evil.example.com' });
    const grant = parsePattern('evil.example.com:443');
    if (!grant.ok) throw new Error('pattern');
    expect(decideDestination(r, dest('evil.example.com', 443), [grant.value]).verdict).toBe('deny');
  });

  it('matches IP literals by value, IPv6 in any spelling', () => {
    const r = rules(['[2001:db8:0:0::1]:443', '203.0.113.7']);
    expect(decideDestination(r, dest('2001:db8::1', 443)).verdict).toBe('allow');
    expect(decideDestination(r, dest('[2001:0db8::0001]', 443)).verdict).toBe('allow');
    expect(decideDestination(r, dest('203.0.113.7', 22)).verdict).toBe('allow');
    expect(decideDestination(r, dest('203.0.113.8', 22)).verdict).toBe('unknown');
  });

  it('the "always" pattern round-trips', () => {
    const d = dest('::1', 8443);
    expect(patternForDestination(d)).toBe('[::1]:8443');
    const r = rules([patternForDestination(d)]);
    expect(decideDestination(r, d).verdict).toBe('allow');
  });

  it('compileRules reports every bad field', () => {
    const r = compileRules({
      allow: ['ok.com', '*'],
      deny: ['http://x'],
      allowAddresses: ['nope'],
    });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error.map((e) => e.field)).toEqual([
        'network.allow[1]',
        'network.deny[0]',
        'network.allowAddresses[0]',
      ]);
  });

  it('refuses malformed destinations', () => {
    expect(parseDestination('a b', 80).ok).toBe(false);
    expect(parseDestination('example.com', 0).ok).toBe(false);
    expect(parseDestination('1.2.3.4%eth0', 80).ok).toBe(false);
  });
});

describe('addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12::1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (text, cls) => {
    expect(classifyAddress(parseIp(text)!)).toBe(cls);
  });

  it('formats IPv6 canonically', () => {
    expect(formatIp(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')!)).toBe('2001:db8::1');
    expect(formatIp(parseIp('::ffff:1.2.3.4')!)).toBe('::ffff:102:304');
    expect(formatIp(parseIp('1:0:0:1:0:0:0:1')!)).toBe('1:0:0:1::1');
    expect(parseIp('1::2::3')).toBeUndefined();
    expect(parseIp('01.2.3.4')).toBeUndefined();
  });

  it('CIDR ranges', () => {
    const r = parseIpRange('10.0.0.0/8')!;
    expect(rangeContains(r, parseIp('10.200.0.1')!)).toBe(true);
    expect(rangeContains(r, parseIp('11.0.0.1')!)).toBe(false);
    expect(parseIpRange('10.0.0.1/8')).toBeUndefined();
    expect(parseIpRange('10.0.0.0/33')).toBeUndefined();
    expect(rangeContains(parseIpRange('fc00::/7')!, parseIp('fdff::1')!)).toBe(true);
  });

  it('refuses private addresses unless allowAddresses names them', () => {
    expect(checkAddress(rules([]), parseIp('127.0.0.1')!)).toEqual({
      allowed: false,
      addressClass: 'loopback',
    });
    expect(checkAddress(rules([], [], ['127.0.0.1']), parseIp('127.0.0.1')!)).toEqual({
      allowed: true,
      rule: 'allowAddresses 127.0.0.1',
    });
    expect(checkAddress(rules([], [], ['10.0.0.0/8']), parseIp('127.0.0.1')!).allowed).toBe(false);
    expect(checkAddress(rules([]), parseIp('8.8.4.4')!)).toEqual({ allowed: true });
  });
});
