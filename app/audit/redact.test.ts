import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, redactSecrets, secretMarker } from './redact';

const TOKEN = { name: 'GITHUB_TOKEN', value: 'ghp_abcdef123456' };

describe('redactSecrets', () => {
  it('replaces a secret in nested args, including substrings, array items and keys', () => {
    const args = {
      query: 'repo:x',
      headers: { Authorization: `Bearer ${TOKEN.value}` },
      list: ['plain', TOKEN.value, { deep: [`a${TOKEN.value}b${TOKEN.value}`] }],
      [TOKEN.value]: 1,
      n: 42,
      ok: true,
      none: null,
    };
    const out = redactSecrets(args, [TOKEN]);
    const text = JSON.stringify(out);
    expect(text).not.toContain(TOKEN.value);
    expect(out.headers.Authorization).toBe(`Bearer ${secretMarker('GITHUB_TOKEN')}`);
    expect(out.list[1]).toBe('«secret:GITHUB_TOKEN»');
    expect(out.list[2]).toEqual({ deep: ['a«secret:GITHUB_TOKEN»b«secret:GITHUB_TOKEN»'] });
    expect(Object.keys(out)).toContain('«secret:GITHUB_TOKEN»');
    expect(out.n).toBe(42);
    expect(out.none).toBeNull();
    // The input is not modified.
    expect(args.headers.Authorization).toContain(TOKEN.value);
  });

  it('prefers the longer secret when one contains another', () => {
    const out = redactSecrets('key=abcd1234efgh', [
      { name: 'SHORT', value: 'abcd' },
      { name: 'LONG', value: 'abcd1234efgh' },
    ]);
    expect(out).toBe('key=«secret:LONG»');
  });

  it('ignores values shorter than the minimum and is a no-op without secrets', () => {
    expect(MIN_SECRET_LENGTH).toBe(4);
    expect(redactSecrets('a1b a1b', [{ name: 'PIN', value: 'a1b' }])).toBe('a1b a1b');
    const value = { a: 'x' };
    expect(redactSecrets(value, [])).toBe(value);
  });

  it('treats regular-expression characters in a secret literally', () => {
    const out = redactSecrets(['p.*$(x)|', 'pzzz$(x)|'], [{ name: 'P', value: 'p.*$(x)|' }]);
    expect(out).toEqual(['«secret:P»', 'pzzz$(x)|']);
  });

  it('redacts what JSON would serialize from non-plain objects and survives cycles', () => {
    class Holder {
      constructor(readonly token = TOKEN.value) {}
    }
    const cyclic: Record<string, unknown> = { s: TOKEN.value };
    cyclic.self = cyclic;
    const out = redactSecrets({ h: new Holder(), c: cyclic }, [TOKEN]);
    expect(JSON.stringify(out)).not.toContain(TOKEN.value);
    expect(out.c.self).toBe('[Circular]');
  });

  it('stops at a fixed depth instead of exhausting the stack, dropping what lies deeper', () => {
    let deep: unknown = [TOKEN.value];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const text = JSON.stringify(redactSecrets({ deep }, [TOKEN]));
    expect(text).toContain('"[Too deep]"');
    expect(text).not.toContain(TOKEN.value);
  });

  it('keeps a __proto__ key as a plain key of the copy', () => {
    const parsed: unknown = JSON.parse(`{"__proto__":{"polluted":"${TOKEN.value}"}}`);
    const out = redactSecrets(parsed, [TOKEN]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"«secret:GITHUB_TOKEN»"}}');
  });
});
