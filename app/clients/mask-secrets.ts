/**
 * Masking secret values in what Warden shows about a client's config (the connect diff), the
 * same way the import preview does: a value is secret when its name says so (a token, a key, an
 * Authorization header) or when it looks like a credential. Only the display is masked; the
 * files are written with the real values.
 */
import { isRecord } from './client-formats';
import { looksSecretName, mapEnvValue } from './variables';

/** What a masked value reads as. */
export const MASK = '••••••';

/** How deep the walk goes into a client's JSON; deeper values are not looked at. */
const MAX_DEPTH = 32;

/**
 * The secret string values in a parsed client config: values under secret-sounding keys, and
 * `env`/`headers` values that import would keep as Warden secrets.
 */
export function secretValuesIn(doc: unknown): string[] {
  const found = new Set<string>();
  const walk = (
    value: unknown,
    key: string | undefined,
    parent: string | undefined,
    depth: number,
  ) => {
    if (depth > MAX_DEPTH) return;
    if (typeof value === 'string') {
      if (value.length < 4 || key === undefined) return;
      const inVars = parent === 'env' || parent === 'headers' || parent === 'environment';
      if (looksSecretName(key) || (inVars && mapEnvValue(key, value).kind === 'secret'))
        found.add(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) walk(item, undefined, key, depth + 1);
      return;
    }
    if (isRecord(value)) for (const [k, v] of Object.entries(value)) walk(v, k, key, depth + 1);
  };
  walk(doc, undefined, undefined, 0);
  return [...found];
}

/** `text` with every occurrence of each secret (as written, or JSON-escaped) replaced by MASK. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form.length > 0) out = out.split(form).join(MASK);
  }
  return out;
}
