import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys recursively and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('gives the same text for equal objects built in a different order', () => {
    expect(canonicalJson({ x: 1, y: [1, 2] })).toBe(canonicalJson({ y: [1, 2], x: 1 }));
  });

  it('follows JSON.stringify for values JSON cannot hold', () => {
    const date = new Date('2026-01-02T03:04:05.000Z');
    expect(canonicalJson({ u: undefined, f: () => 1, n: NaN, d: date, a: [undefined] })).toBe(
      '{"a":[null],"d":"2026-01-02T03:04:05.000Z","n":null}',
    );
    expect(canonicalJson(undefined)).toBeUndefined();
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
  });

  it('writes bigints as strings and cycles as a marker instead of throwing', () => {
    const o: Record<string, unknown> = { big: 12345678901234567890n };
    o.me = o;
    expect(canonicalJson(o)).toBe('{"big":"12345678901234567890","me":"[Circular]"}');
  });

  it('walks a value nested 200,000 deep without exhausting the stack', () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const text = canonicalJson({ b: deep, a: 1 });
    expect(text?.length).toBe(200_001 * 2 + '{"a":1,"b":}'.length);
    expect(text?.startsWith('{"a":1,"b":[[[')).toBe(true);
  });

  it('writes an object met twice (not a cycle) in full both times', () => {
    const shared = { b: 2, a: 1 };
    expect(canonicalJson({ y: shared, x: [shared] })).toBe(
      '{"x":[{"a":1,"b":2}],"y":{"a":1,"b":2}}',
    );
  });

  it('gives the same text on either side of the depth where it stops recursing', () => {
    // JSON.stringify with keys sorted by a replacer: the reference for plain, acyclic data.
    const reference = (value: unknown) =>
      JSON.stringify(value, (_key, v: unknown) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
          : v,
      );
    for (const depth of [62, 63, 64, 65, 66, 200]) {
      let nested: unknown = { é: 'é', a: [1, undefined, { c: null, b: true, B: 'x' }] };
      for (let i = 0; i < depth; i++) nested = i % 2 ? [nested, i] : { z: i, y: nested };
      expect(canonicalJson(nested)).toBe(reference(nested));
      const cycle: Record<string, unknown> = { k: nested };
      cycle.self = cycle;
      expect(canonicalJson(cycle)).toBe(`{"k":${reference(nested)},"self":"[Circular]"}`);
    }
  });

  it('keeps __proto__ and constructor keys as plain data', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"x":1},"constructor":{"prototype":2}}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"constructor":{"prototype":2}}');
  });
});
