/** What the policy editor says as the user types, and the small pure helpers of the screens. */
import { describe, expect, it } from 'vitest';
import { secondsLeft } from '../../../renderer/src/components/time-left';
import {
  checkAddress,
  checkEnvName,
  checkPattern,
  checkRootPath,
  looksSecret,
  normalPattern,
} from '../../../renderer/src/components/policy-checks';
import { copyName } from '../../../renderer/src/components/server-name';
import { windowRange } from '../../../renderer/src/components/use-fixed-window';

describe('policy checks', () => {
  it('accepts patterns the broker accepts and says what is wrong with the others', () => {
    expect(checkPattern('api.example.com', [])).toBeUndefined();
    expect(checkPattern('*.example.com:443', [])).toBeUndefined();
    expect(checkPattern('', [])).toBeUndefined();
    expect(checkPattern('https://x.example/a', [])).toContain('is a URL, not a host pattern');
    expect(checkPattern('*.com', [])).toBeDefined();
    expect(checkPattern('API.example.com', ['api.example.com'])).toContain('already');
    expect(normalPattern(' API.Example.com:443 ')).toBe('api.example.com:443');
  });

  it('checks addresses, variable names and folder paths', () => {
    expect(checkAddress('127.0.0.1', [])).toBeUndefined();
    expect(checkAddress('10.0.0.0/8', [])).toBeUndefined();
    expect(checkAddress('10.0.0.1/8', [])).toContain('not an IP address');
    expect(checkAddress('localhost', [])).toContain('not an IP address');
    expect(checkEnvName('GITHUB_TOKEN', [])).toBeUndefined();
    expect(checkEnvName('1BAD', [])).toContain('must be a variable name');
    expect(checkRootPath('/home/me/p', [])).toBeUndefined();
    expect(checkRootPath('rel/p', [])).toContain('must be an absolute path');
    expect(checkRootPath('/home/me/../etc', [])).toContain('".."');
    expect(checkRootPath('/a', ['/a'])).toContain('already');
  });

  it('treats the same names as secrets as the core does', () => {
    expect(looksSecret('API_TOKEN')).toBe(true);
    expect(looksSecret('OPENAI_API_KEY')).toBe(true);
    expect(looksSecret('MODE')).toBe(false);
  });
});

describe('screen helpers', () => {
  it('names a duplicate after the first free copy name', () => {
    expect(copyName('fs', new Set(['fs']))).toBe('fs-copy');
    expect(copyName('fs', new Set(['fs', 'fs-copy', 'fs-copy-2']))).toBe('fs-copy-3');
    expect(copyName('x'.repeat(64), new Set()).length).toBe(64);
  });

  it('windows equal-height rows from the scroll offset alone', () => {
    expect(windowRange(0, 280, 100_000, 28, 2)).toEqual({ first: 0, end: 12 });
    expect(windowRange(28 * 500, 280, 100_000, 28, 2)).toEqual({ first: 498, end: 512 });
    expect(windowRange(28 * 99_995, 280, 100_000, 28, 2)).toEqual({ first: 99_993, end: 100_000 });
    expect(windowRange(0, 280, 0, 28, 2)).toEqual({ first: 0, end: 0 });
  });

  it('counts down whole seconds, never below zero', () => {
    const now = Date.parse('2026-01-01T00:00:00.000Z');
    expect(secondsLeft('2026-01-01T00:00:41.200Z', now)).toBe(42);
    expect(secondsLeft('2025-12-31T23:59:00.000Z', now)).toBe(0);
  });
});
