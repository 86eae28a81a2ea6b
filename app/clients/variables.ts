/**
 * Variable references in client configs (`${input:id}`, `${env:NAME}`, `${NAME}`,
 * `${workspaceFolder}`, `${userHome}`, `~`): paths are resolved so that the sandbox can bind
 * them, environment references stay references, and literal values that look like secrets are
 * told apart so they become Warden secrets instead of plain text.
 */

/** What Warden knows when it resolves a path written in a client file. */
export interface PathContext {
  home: string;
  /** The project folder of a project file or a per-project entry. */
  workspace?: string;
  separator: '/' | '\\';
}

const REFERENCE = /\$\{([^}]+)\}/g;

/** Resolves `${userHome}`, `${workspaceFolder}`, `${pathSeparator}` and a leading `~`. */
export function resolvePath(
  value: string,
  ctx: PathContext,
): { value: string; unresolved: string[] } {
  const unresolved: string[] = [];
  let out = value.replace(REFERENCE, (whole, name: string) => {
    if (name === 'userHome') return ctx.home;
    if (name === 'pathSeparator' || name === '/') return ctx.separator;
    if (name === 'workspaceFolder' || name === 'workspaceRoot') {
      if (ctx.workspace) return ctx.workspace;
    }
    unresolved.push(whole);
    return whole;
  });
  if (out === '~' || out.startsWith('~/')) out = ctx.home + out.slice(1);
  return { value: out, unresolved };
}

/** How one environment value of a client entry is carried into Warden. */
export type EnvMapping =
  | { kind: 'plain'; value: string }
  | { kind: 'secret'; value: string }
  /** `${env:KEY}` / `${KEY}` for the same KEY: the host variable is passed through. */
  | { kind: 'pass'; name: string }
  /** A VS Code input: its value lives in VS Code, not in the file. */
  | { kind: 'input'; id: string; reference: string }
  /** Any other reference, kept as written. */
  | { kind: 'reference'; reference: string };

const SECRET_NAME =
  /TOKEN|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|PRIVATE|CREDENTIAL|AUTH|_KEY$|^KEY/i;
const SECRET_VALUE =
  /^(sk-|sk_live_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abpr]-|AKIA[0-9A-Z]{12,}|AIza|eyJ[\w-]+\.[\w-]+\.)/;

/** True when a variable name says its value is a secret. */
export function looksSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** True when a literal value looks like a credential (known prefixes, long random tokens). */
export function looksSecretValue(value: string): boolean {
  if (SECRET_VALUE.test(value)) return true;
  return (
    value.length >= 32 &&
    /^[A-Za-z0-9_\-+/=.]+$/.test(value) &&
    /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value) &&
    !value.startsWith('/') &&
    !value.includes('://')
  );
}

/** Classifies one `env` value of a client entry. */
export function mapEnvValue(key: string, value: string): EnvMapping {
  const whole = /^\$\{([^}]+)\}$/.exec(value);
  if (whole) {
    const inner = whole[1]!;
    if (inner.startsWith('input:')) return { kind: 'input', id: inner.slice(6), reference: value };
    const name = inner.startsWith('env:') ? inner.slice(4) : inner;
    if (name === key && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return { kind: 'pass', name };
    return { kind: 'reference', reference: value };
  }
  if (value.includes('${')) return { kind: 'reference', reference: value };
  if (value !== '' && (looksSecretName(key) || looksSecretValue(value)))
    return { kind: 'secret', value };
  return { kind: 'plain', value };
}

/** Every `${…}` reference inside `value`. */
export function referencesIn(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((m) => m[0]);
}
