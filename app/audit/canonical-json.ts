/**
 * Canonical JSON: object keys sorted recursively (UTF-16 code unit order), no whitespace. The
 * audit hash chain is computed over this text, so the same event always hashes the same way.
 * Values JSON cannot hold follow `JSON.stringify` (undefined and functions dropped from objects,
 * `null` in arrays, non-finite numbers `null`, `toJSON` honoured), except that a bigint becomes
 * its decimal string and a cycle becomes the string "[Circular]" instead of throwing: an audit
 * event must never be lost because its payload was odd.
 */

/** Serializes `value` canonically. Returns `undefined` only when `value` itself is unrepresentable. */
export function canonicalJson(value: unknown): string | undefined {
  return write(value, new Set<object>());
}

function write(value: unknown, seen: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && 'toJSON' in value) {
    const toJSON = value.toJSON;
    if (typeof toJSON === 'function') value = (toJSON as () => unknown).call(value);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (seen.has(obj)) return '"[Circular]"';
  seen.add(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = '[' + obj.map((item: unknown) => write(item, seen) ?? 'null').join(',') + ']';
  } else {
    const parts: string[] = [];
    for (const key of Object.keys(obj).sort()) {
      const text = write((obj as Record<string, unknown>)[key], seen);
      if (text !== undefined) parts.push(JSON.stringify(key) + ':' + text);
    }
    out = '{' + parts.join(',') + '}';
  }
  seen.delete(obj);
  return out;
}
