/**
 * Redaction of secret values before anything is logged or stored. Every occurrence of a secret's
 * value, in any string anywhere in a JSON-like structure (object keys included, substrings
 * included), becomes `«secret:NAME»`.
 *
 * Values shorter than {@link MIN_SECRET_LENGTH} characters are ignored: a one- to three-character
 * "secret" occurs by chance in ordinary text, so replacing it would shred unrelated data, and the
 * pattern of replacements would itself reveal the value; such a value protects nothing anyway.
 */

import { MAX_WALK_DEPTH, TOO_DEEP_MARKER } from '../json/json-depth';

/** A secret as the redactor sees it: its name (shown) and its value (never shown). */
export interface AuditSecret {
  name: string;
  value: string;
}

export const MIN_SECRET_LENGTH = 4;

/** The marker that replaces a secret's value. */
export function secretMarker(name: string): string {
  return `«secret:${name}»`;
}

/**
 * Returns a copy of `value` with every secret value replaced by its marker. Longer secrets win
 * where two overlap; replacement is one pass, so a marker is never itself rewritten. Non-plain
 * objects are walked the way JSON serializes them (`toJSON` first, then own enumerable keys), so
 * nothing that would reach the stored JSON escapes redaction; cycles become "[Circular]", and what
 * lies deeper than {@link MAX_WALK_DEPTH} becomes "[Too deep]" (dropped, so it cannot leak).
 */
export function redactSecrets<T>(value: T, secrets: readonly AuditSecret[]): T {
  return secretRedactor(secrets)(value);
}

/** The secret set last compiled (by its names and values), and its redactor. */
let lastSet: { key: string; redact: <T>(value: T) => T } | undefined;

/**
 * {@link redactSecrets} for one set of secrets, compiled once: the pattern is built only when the
 * names and values differ from those last compiled, not once per value redacted.
 */
export function secretRedactor(secrets: readonly AuditSecret[]): <T>(value: T) => T {
  const usable = secrets.filter((s) => s.value.length >= MIN_SECRET_LENGTH);
  if (usable.length === 0) return unchanged;
  const key = usable.map((s) => `${s.name}\0${s.value}`).join('\0');
  if (lastSet?.key !== key) lastSet = { key, redact: compile(usable) };
  return lastSet.redact;
}

const unchanged = <T>(value: T): T => value;

function compile(usable: AuditSecret[]): <T>(value: T) => T {
  // Longest first so that a secret containing another one is replaced whole.
  const sorted = [...usable].sort((a, b) => b.value.length - a.value.length);
  const names = new Map<string, string>();
  for (const s of sorted) if (!names.has(s.value)) names.set(s.value, s.name);
  const pattern = new RegExp([...names.keys()].map(escapeRegExp).join('|'), 'g');
  const redactString = (s: string): string =>
    s.replace(pattern, (match) => secretMarker(names.get(match) ?? 'unknown'));
  return <T>(value: T) => walk(value, redactString, new Set(), 0) as T;
}

/**
 * A copy of `value` with `fn` applied to every string, object keys included, walked the way
 * {@link redactSecrets} walks it (JSON's view, cycles and depth bounded).
 */
export function mapJsonStrings<T>(value: T, fn: (s: string) => string): T {
  return walk(value, fn, new Set(), 0) as T;
}

function walk(
  value: unknown,
  redact: (s: string) => string,
  seen: Set<object>,
  depth: number,
): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if ('toJSON' in value && typeof value.toJSON === 'function') {
    return walk((value.toJSON as () => unknown).call(value), redact, seen, depth);
  }
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_WALK_DEPTH) return TOO_DEEP_MARKER;
  if (Array.isArray(value)) {
    seen.add(value);
    const out = value.map((item: unknown) => walk(item, redact, seen, depth + 1));
    seen.delete(value);
    return out;
  }
  seen.add(value);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a "__proto__" key stays a plain key of the copy, never its prototype.
    Object.defineProperty(out, redact(key), {
      value: walk(item, redact, seen, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  seen.delete(value);
  return out;
}

/** `s` as a regular expression that matches exactly it. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
