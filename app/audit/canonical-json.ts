/**
 * Canonical JSON: object keys sorted recursively (UTF-16 code unit order), no whitespace. The
 * audit hash chain is computed over this text, so the same event always hashes the same way.
 * Values JSON cannot hold follow `JSON.stringify` (undefined and functions dropped from objects,
 * `null` in arrays, non-finite numbers `null`, `toJSON` honoured), except that a bigint becomes
 * its decimal string and a cycle becomes the string "[Circular]" instead of throwing: an audit
 * event must never be lost because its payload was odd. The walk keeps its own stack, so a value
 * nested a million deep costs memory, never the call stack.
 */

type Frame =
  | { array: true; obj: unknown[]; i: number; parts: string[] }
  | { array: false; obj: object; keys: string[]; i: number; parts: string[] };

const OPENED = Symbol('opened');

/** How deep the recursive serializer goes before the value is walked again with its own stack. */
const RECURSION_DEPTH = 64;
const TOO_DEEP = Symbol('too deep');

/** Serializes `value` canonically. Returns `undefined` only when `value` itself is unrepresentable. */
export function canonicalJson(value: unknown): string | undefined {
  // Every audit event is serialized here: recursion with string concatenation allocates less
  // than the frames below, and events are shallow.
  const fast = recursive(value, []);
  return fast === TOO_DEEP ? walked(value) : fast;
}

/**
 * The same text as {@link walked}, by recursion over at most {@link RECURSION_DEPTH} levels;
 * TOO_DEEP past them. `open` holds the objects being serialized (a cycle leads back to one).
 */
function recursive(v: unknown, open: object[]): string | undefined | typeof TOO_DEEP {
  v = viaToJSON(v);
  const text = scalarText(v);
  if (text !== OBJECT) return text;
  const obj = v as object;
  if (open.includes(obj)) return '"[Circular]"';
  if (open.length >= RECURSION_DEPTH) return TOO_DEEP;
  open.push(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = '[';
    for (let i = 0; i < obj.length; i++) {
      const item = recursive(obj[i], open);
      if (item === TOO_DEEP) return TOO_DEEP;
      out += `${i > 0 ? ',' : ''}${item ?? 'null'}`;
    }
    out += ']';
  } else {
    const keys = Object.keys(obj);
    if (!sorted(keys)) keys.sort();
    out = '{';
    for (const key of keys) {
      const item = recursive((obj as Record<string, unknown>)[key], open);
      if (item === TOO_DEEP) return TOO_DEEP;
      if (item !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${item}`;
    }
    out += '}';
  }
  open.pop();
  return out;
}

const OBJECT = Symbol('object');

/** `v`, or what its `toJSON` method gives (as JSON.stringify does, called once). */
function viaToJSON(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && 'toJSON' in v) {
    const toJSON = v.toJSON;
    if (typeof toJSON === 'function') return (toJSON as () => unknown).call(v);
  }
  return v;
}

/** The text of a scalar (undefined for what JSON drops), or OBJECT for an array or object. */
function scalarText(v: unknown): string | undefined | typeof OBJECT {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(v.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return v === null ? 'null' : OBJECT;
  }
}

/** Whether `keys` are already in the order `sort()` gives (UTF-16 code units). */
function sorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

/** The canonical text of a value of any depth: an explicit stack instead of the call stack. */
function walked(value: unknown): string | undefined {
  const seen = new Set<object>();
  const stack: Frame[] = [];

  /** The text of a scalar, or OPENED after pushing the frame of an array or object. */
  const enter = (v: unknown): string | undefined | typeof OPENED => {
    v = viaToJSON(v);
    const text = scalarText(v);
    if (text !== OBJECT) return text;
    const obj = v as object;
    if (seen.has(obj)) return '"[Circular]"';
    seen.add(obj);
    stack.push(
      Array.isArray(obj)
        ? { array: true, obj, i: 0, parts: [] }
        : { array: false, obj, keys: Object.keys(obj).sort(), i: 0, parts: [] },
    );
    return OPENED;
  };

  let done = enter(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (done !== OPENED) {
      if (top.array) top.parts.push(done ?? 'null');
      else if (done !== undefined) top.parts.push(`${JSON.stringify(top.keys[top.i])}:${done}`);
      top.i++;
    }
    if (top.array ? top.i < top.obj.length : top.i < top.keys.length) {
      done = enter(
        top.array ? top.obj[top.i] : (top.obj as Record<string, unknown>)[top.keys[top.i]!],
      );
      continue;
    }
    stack.pop();
    seen.delete(top.obj);
    done = top.array ? `[${top.parts.join(',')}]` : `{${top.parts.join(',')}}`;
  }
  return done as string | undefined;
}
