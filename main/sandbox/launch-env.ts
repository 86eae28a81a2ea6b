/**
 * The environment a server starts with: a minimal base (PATH, locale, TERM, HOME, TMPDIR) plus
 * exactly the variables its policy passes through or sets. Nothing else of the host's.
 */
import type { Policy } from '../../app/policy/policy-schema';

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Builds the server's environment. Secret references resolve through `secrets` (by ref). */
export function buildServerEnv(
  policy: Policy,
  hostEnv: Readonly<Record<string, string | undefined>>,
  secrets: Readonly<Record<string, string>>,
  place: { home: string; tmpdir: string; path?: string },
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: place.path ?? hostEnv.PATH ?? DEFAULT_PATH,
    HOME: place.home,
    TMPDIR: place.tmpdir,
    LANG: hostEnv.LANG ?? 'C.UTF-8',
    TERM: hostEnv.TERM ?? 'dumb',
  };
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value !== undefined && (name.startsWith('LC_') || name === 'LANGUAGE')) env[name] = value;
  }
  for (const name of policy.env.pass) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(policy.env.set)) {
    if (value.kind === 'plain') env[name] = value.value;
    else {
      const secret = secrets[value.ref];
      if (secret !== undefined) env[name] = secret;
    }
  }
  return env;
}
