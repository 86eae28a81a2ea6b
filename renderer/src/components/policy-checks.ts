/**
 * Checks the policy editor runs as the user types, before the core sees anything: each returns
 * the message shown beside the field, or undefined when the value is fine. The core validates
 * again on save and its field errors are shown in the same places.
 */
import { hiddenPathSchema } from '../../../app/policy/guards-schema';
import { parseIp, parseIpRange } from '../../../app/policy/network-address';
import { parsePattern } from '../../../app/policy/network-patterns';
import { envNameSchema, rootSchema } from '../../../app/policy/policy-schema';

/** A network allow/deny pattern. */
export function checkPattern(text: string, existing: readonly string[]): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const parsed = parsePattern(t);
  if (!parsed.ok) return `"${t}" ${parsed.error.message}: ${parsed.error.remedy}`;
  if (existing.includes(parsed.value.text)) return `"${t}" is already in the list`;
  return undefined;
}

/** A hidden path: `~/PATH`, an absolute path, or a file name pattern. */
export function checkHiddenPath(text: string, existing: readonly string[]): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const parsed = hiddenPathSchema.safeParse(t);
  if (!parsed.success) return `"${t}" ${parsed.error.issues[0]?.message ?? 'is not a path'}`;
  return existing.includes(t) ? `"${t}" is already in the list` : undefined;
}

/** The core's errors for the items of the list at `field` (`policy.guards.hide`), by index. */
export function listItemErrors(
  errors: Record<string, string>,
  field: string,
): Record<number, string> {
  const out: Record<number, string> = {};
  const item = new RegExp(`^${field.replaceAll('.', '\\.')}\\[(\\d+)\\]`);
  for (const [at, message] of Object.entries(errors)) {
    const m = item.exec(at);
    if (m) out[Number(m[1])] = message;
  }
  return out;
}

/** A literal address or CIDR range allowed past the private-range block. */
export function checkAddress(text: string, existing: readonly string[]): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (!parseIp(t) && !parseIpRange(t)) {
    return `"${t}" is not an IP address or CIDR range, e.g. 127.0.0.1, 10.0.0.0/8 or ::1`;
  }
  if (existing.includes(t)) return `"${t}" is already in the list`;
  return undefined;
}

/** An environment variable name. */
export function checkEnvName(text: string, existing: readonly string[]): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const parsed = envNameSchema.safeParse(t);
  if (!parsed.success) return `"${t}" ${parsed.error.issues[0]?.message ?? 'is not a name'}`;
  if (existing.includes(t)) return `"${t}" is already in the list`;
  return undefined;
}

/** A filesystem root path (resolution on the host happens at launch and is reported there). */
export function checkRootPath(text: string, existing: readonly string[]): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const parsed = rootSchema.shape.path.safeParse(t);
  if (!parsed.success) return `"${t}" ${parsed.error.issues[0]?.message ?? 'is not a path'}`;
  if (/(^|[\\/])\.\.([\\/]|$)/.test(t)) return `"${t}" contains "..": write the resolved path`;
  if (existing.includes(t)) return `"${t}" is already a root`;
  return undefined;
}

/** The normal form a pattern is stored in (lower case, trimmed). */
export function normalPattern(text: string): string {
  const parsed = parsePattern(text.trim());
  return parsed.ok ? parsed.value.text : text.trim();
}

export { looksSecret } from '../../../app/policy/secret-names';

/** Field errors from the core keyed by path, restricted to those under `prefix`. */
export function errorsUnder(
  errors: ReadonlyArray<{ field: string; message: string }>,
  prefix: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of errors) if (e.field.startsWith(prefix)) out[e.field] ??= e.message;
  return out;
}
