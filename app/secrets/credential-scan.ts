/**
 * Finds credentials in JSON-like data a tool call carries: the user's own secret values (those
 * Warden holds for its servers) and well-known credential formats (private keys, cloud keys,
 * GitHub, GitLab, Slack, npm and OpenAI-style tokens, JWTs). One regular expression, compiled once
 * per set of secrets, is run over each string in a single pass; data without a hit is returned as
 * it is, uncopied. A hit is described by its kind (and a secret's variable name), never its value.
 */
import {
  type AuditSecret,
  MIN_SECRET_LENGTH,
  escapeRegExp,
  mapJsonStrings,
  secretMarker,
} from '../audit/redact';
import { MAX_WALK_DEPTH } from '../json/json-depth';

/** Formats recognised without knowing the value, each with bounded repetition (no backtracking blow-up). */
const FORMATS = {
  'private-key':
    '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[^-]{0,16384}-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|[A-Za-z0-9+/=\\r\\n\\\\]{0,16384})',
  'aws-access-key': '\\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\\b',
  'aws-secret-key':
    '(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)["\']?\\s{0,4}[:=]\\s{0,4}["\']?[A-Za-z0-9/+=]{40}\\b',
  'github-token': '\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\\b',
  'gitlab-token': '\\bgl(?:pat|ptt|dt|rt|soat|ft|cbt|imt)-[A-Za-z0-9_-]{20,255}',
  'slack-token':
    '\\b(?:xox[abposr]-[A-Za-z0-9-]{10,255}|xapp-[0-9]-[A-Za-z0-9-]{10,255})|https://hooks\\.slack\\.com/services/[A-Za-z0-9/]{20,255}',
  'npm-token': '\\bnpm_[A-Za-z0-9]{36}\\b',
  'openai-key':
    '\\bsk-(?:proj-|svcacct-|admin-|ant-[a-z0-9]{0,10}-)?(?=[A-Za-z0-9_-]{0,255}[0-9])(?=[A-Za-z0-9_-]{0,255}[A-Z])[A-Za-z0-9_-]{32,255}',
  jwt: '\\beyJ[A-Za-z0-9_-]{8,4096}\\.eyJ[A-Za-z0-9_-]{8,8192}\\.[A-Za-z0-9_-]{0,4096}',
} as const;

/** A credential format recognised without knowing the value. */
export type CredentialFormat = keyof typeof FORMATS;
/** A kind of credential: a format, or `secret` for one of the user's own values. */
export type CredentialKind = CredentialFormat | 'secret';

/** Every format, in the order the scanner tries them. */
export const CREDENTIAL_FORMATS = Object.keys(FORMATS) as CredentialFormat[];

/** What one scan found, by kind (a secret's variable name rides along), with how many times. */
export interface CredentialHit {
  kind: CredentialKind;
  name?: string;
  count: number;
}

/** The marker that replaces a credential of a known format for the client. */
export function credentialMarker(kind: CredentialFormat): string {
  return `«credential:${kind}»`;
}

const groupName = (kind: CredentialFormat) => kind.replace(/-/g, '_');

/** Finds or redacts credentials in JSON-like data; built by {@link credentialScanner}. */
export interface CredentialScanner {
  /** Kinds found in `value`, without changing it (empty when none). */
  find(value: unknown): CredentialHit[];
  /** `value` with every credential replaced by its marker; the same object when none was found. */
  redact<T>(value: T): { value: T; hits: CredentialHit[] };
}

/**
 * A scanner for `secrets` (values shorter than the redactor's minimum are ignored) and, with
 * `formats`, the well-known credential formats. Values in `allowed` are neither found nor
 * replaced, even where they have a known format (a server's own token in its own calls). Returns
 * undefined when there is nothing to find.
 */
export function credentialScanner(
  secrets: readonly AuditSecret[],
  options: { formats: boolean; allowed?: readonly string[] },
): CredentialScanner | undefined {
  const names = new Map<string, string>();
  const byLength = (a: string, b: string) => b.length - a.length;
  const usable = secrets
    .filter((s) => s.value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => byLength(a.value, b.value));
  const allowed = new Set((options.allowed ?? []).filter((v) => v.length >= MIN_SECRET_LENGTH));
  for (const s of usable)
    if (!names.has(s.value) && !allowed.has(s.value)) names.set(s.value, s.name);
  const parts: string[] = [];
  // Tried first at each position, so that a known value is never read as a format's match.
  if (allowed.size > 0 && options.formats)
    parts.push(`(?<allowed>${[...allowed].sort(byLength).map(escapeRegExp).join('|')})`);
  if (names.size > 0) parts.push(`(?<secret>${[...names.keys()].map(escapeRegExp).join('|')})`);
  if (options.formats)
    for (const kind of CREDENTIAL_FORMATS) parts.push(`(?<${groupName(kind)}>${FORMATS[kind]})`);
  if (parts.length === 0) return undefined;
  const pattern = new RegExp(parts.join('|'), 'g');

  const classify = (match: string, groups: Record<string, string | undefined>) => {
    if (groups.allowed !== undefined) return undefined;
    if (groups.secret !== undefined) return { kind: 'secret' as const, name: names.get(match) };
    const kind = CREDENTIAL_FORMATS.find((k) => groups[groupName(k)] !== undefined) ?? 'jwt';
    return { kind, name: undefined };
  };
  const count = (hits: Map<string, CredentialHit>, kind: CredentialKind, name?: string) => {
    const key = `${kind}\u0000${name ?? ''}`;
    const hit = hits.get(key);
    if (hit) hit.count++;
    else hits.set(key, { kind, ...(name !== undefined ? { name } : {}), count: 1 });
  };
  const hasHit = (s: string) => {
    pattern.lastIndex = 0;
    if (allowed.size === 0 || !options.formats) return pattern.test(s);
    for (const m of s.matchAll(pattern)) if (m.groups?.allowed === undefined) return true;
    return false;
  };

  return {
    find(value) {
      const hits = new Map<string, CredentialHit>();
      forEachString(value, (s) => {
        if (!hasHit(s)) return;
        pattern.lastIndex = 0; // matchAll starts where the test above stopped otherwise
        for (const m of s.matchAll(pattern)) {
          const c = classify(m[0], m.groups ?? {});
          if (c) count(hits, c.kind, c.name);
        }
      });
      return [...hits.values()];
    },
    redact<T>(value: T) {
      let found = false;
      forEachString(value, (s) => {
        found ||= hasHit(s);
      });
      if (!found) return { value, hits: [] };
      const hits = new Map<string, CredentialHit>();
      const rewrite = (s: string) =>
        s.replace(pattern, (match: string, ...rest: unknown[]) => {
          const c = classify(match, rest[rest.length - 1] as Record<string, string | undefined>);
          if (!c) return match;
          count(hits, c.kind, c.name);
          return c.kind === 'secret' ? secretMarker(c.name ?? 'unknown') : credentialMarker(c.kind);
        });
      return { value: mapJsonStrings(value, rewrite), hits: [...hits.values()] };
    },
  };
}

let formatsOnly: CredentialScanner | undefined;

/**
 * `value` with every credential of a known format replaced by its marker (the same object when
 * there is none): what the audit log and an approval card show of data a client or server sent.
 */
export function redactCredentialFormats<T>(value: T): T {
  formatsOnly ??= credentialScanner([], { formats: true });
  return formatsOnly ? formatsOnly.redact(value).value : value;
}

/** Calls `visit` on every string (object keys included), to a bounded depth. */
function forEachString(value: unknown, visit: (s: string) => void): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (typeof v === 'string') visit(v);
    else if (typeof v === 'object' && v !== null && depth < MAX_WALK_DEPTH) {
      if (Array.isArray(v))
        for (const item of v as unknown[]) stack.push({ v: item, depth: depth + 1 });
      else
        for (const [key, item] of Object.entries(v)) {
          visit(key);
          stack.push({ v: item, depth: depth + 1 });
        }
    }
  }
}

/** One line naming what was found, e.g. "github-token ×2, secret GITHUB_TOKEN". */
export function describeHits(
  hits: readonly { kind: string; name?: string; count: number }[],
): string {
  return hits
    .map((h) => `${h.kind}${h.name ? ` ${h.name}` : ''}${h.count > 1 ? ` ×${h.count}` : ''}`)
    .join(', ');
}
