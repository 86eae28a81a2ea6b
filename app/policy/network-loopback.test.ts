import { describe, expect, it } from 'vitest';
import { namesLoopback } from './network-loopback';

const names = (allow: string[], allowAddresses: string[] = []) =>
  namesLoopback({ allow, allowAddresses });

describe('namesLoopback', () => {
  it('is false for a policy of public hosts, so loopback stays the sandbox’s own', () => {
    expect(names([])).toBe(false);
    expect(names(['api.example.com', '*.example.com:443', '203.0.113.7'], ['10.0.0.0/8'])).toBe(
      false,
    );
    // A name that merely ends like localhost is not it.
    expect(names(['notlocalhost', 'localhost.example.com'])).toBe(false);
  });

  it('is true for a loopback host or address in the allowed patterns', () => {
    for (const pattern of ['localhost', 'LOCALHOST:11434', 'api.localhost', '*.dev.localhost']) {
      expect(names([pattern]), pattern).toBe(true);
    }
    for (const pattern of ['127.0.0.1', '127.0.0.53:53', '[::1]', '[::1]:8080']) {
      expect(names([pattern]), pattern).toBe(true);
    }
  });

  it('is true for an allowed address range that holds a loopback address', () => {
    for (const range of ['127.0.0.1', '127.0.0.0/8', '127.1.2.3/32', '0.0.0.0/0', '::1', '::/0']) {
      expect(names([], [range]), range).toBe(true);
    }
    expect(names([], ['::ffff:127.0.0.1'])).toBe(true);
    expect(names([], ['192.168.0.0/16', 'fd00::/8'])).toBe(false);
  });

  it('takes no unparsable entry for a loopback one', () => {
    expect(names(['http://localhost/'], ['127.0.0.1/99', 'localhost'])).toBe(false);
  });
});
