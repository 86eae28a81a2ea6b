import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { UsageError } from '../../main/cli/cli-io';
import {
  checkNetworkFlags,
  parseEgressFlags,
  parseResolveFlag,
} from '../../main/egress/egress-flags';

describe('--resolve', () => {
  it('accepts NAME:ADDR, NAME:PORT:ADDR and bracketed IPv6', () => {
    expect(parseResolveFlag('API.test:127.0.0.1')).toEqual({
      name: 'api.test',
      addresses: ['127.0.0.1'],
    });
    expect(parseResolveFlag('api.test:443:10.0.0.5')).toEqual({
      name: 'api.test',
      port: 443,
      addresses: ['10.0.0.5'],
    });
    expect(parseResolveFlag('api.test:[::1]')).toEqual({ name: 'api.test', addresses: ['::1'] });
  });

  it.each([
    'api.test',
    'api.test:',
    'api.test:nothost',
    'api.test:::1',
    ':1.2.3.4',
    'a b:1.2.3.4',
    'x:99999:1.2.3.4',
  ])('rejects %j with a usage error', (v) => {
    expect(() => parseResolveFlag(v)).toThrow(UsageError);
  });

  it('takes --resolve out of the argument list and merges repeated names', () => {
    const r = parseEgressFlags([
      '--net',
      'ask',
      '--resolve',
      'a.test:1.2.3.4',
      '--resolve=a.test:[::1]',
      '--',
      'curl',
      '--resolve',
      'x',
    ]);
    expect(r.resolve).toEqual([{ name: 'a.test', addresses: ['1.2.3.4', '::1'] }]);
    expect(r.rest).toEqual(['--net', 'ask', '--', 'curl', '--resolve', 'x']);
    expect(() => parseEgressFlags(['--resolve'])).toThrow(/needs a value/);
  });
});

describe('network flag values', () => {
  it('names the flag and the problem', () => {
    const n = defaultPolicy().network;
    expect(() => checkNetworkFlags({ ...n, allow: ['ok.test', '*.com'] })).toThrow(
      /--allow "\*\.com": would allow every host under/,
    );
    expect(() => checkNetworkFlags({ ...n, deny: ['https://x.test/'] })).toThrow(
      /--deny "https:\/\/x\.test\/": is a URL/,
    );
    expect(() => checkNetworkFlags({ ...n, allowAddresses: ['10.0.0.1/8'] })).toThrow(
      /--allow-address "10\.0\.0\.1\/8"/,
    );
    expect(() =>
      checkNetworkFlags({
        ...n,
        allow: ['*.ok.test:443', '[::1]'],
        allowAddresses: ['::1', '10.0.0.0/8'],
      }),
    ).not.toThrow();
  });
});
