/**
 * The environment a server starts with, on every backend: a minimal base taken from the host
 * (on POSIX: PATH, LANG, LC_*, TERM), the variables its policy passes through, the places Warden
 * gives it (HOME, TMPDIR), the values it sets (secrets resolved by the caller; a missing one is an
 * error), and the proxy variables that point at the egress broker. Nothing else of the host's.
 */
import { type LaunchError, secretUnreadable } from '../../app/contract/launch-error';
import type { EnvPolicy } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import { proxyEnv } from '../egress/proxy-env';

export type HostEnv = Readonly<Record<string, string | undefined>>;

/** Host variables every server gets when they are set on the host. */
export const baseEnvNames: Record<'posix' | 'win32', readonly string[]> = {
  posix: ['PATH', 'LANG', 'LANGUAGE', 'TERM'],
  win32: [
    'PATH',
    'PATHEXT',
    'SystemRoot',
    'SystemDrive',
    'windir',
    'ComSpec',
    'TEMP',
    'TMP',
    'USERPROFILE',
    'APPDATA',
    'LOCALAPPDATA',
    'HOMEDRIVE',
    'HOMEPATH',
    'USERNAME',
  ],
};

/**
 * Builds the server's environment. Later sources win: base, passed, defaults (only where still
 * unset), overrides (HOME, TMPDIR …), set values, then proxy variables, which a policy cannot
 * redirect.
 */
export function buildLaunchEnv(options: {
  family: 'posix' | 'win32';
  hostEnv: HostEnv;
  policy: EnvPolicy;
  secrets: Readonly<Record<string, string>>;
  /** Values a passed or set variable of the same name replaces (tuning for a limit, say). */
  defaults?: Readonly<Record<string, string>>;
  overrides?: Record<string, string>;
  egressPort?: number;
}): Result<Record<string, string>, LaunchError> {
  const env: Record<string, string> = {};
  const take = (name: string) => {
    const value = lookup(options.hostEnv, name, options.family === 'win32');
    if (value !== undefined) env[name] = value;
  };
  baseEnvNames[options.family].forEach(take);
  if (options.family === 'posix')
    Object.keys(options.hostEnv)
      .filter((n) => n.startsWith('LC_'))
      .forEach(take);
  if (options.family === 'posix') {
    // Sane defaults where the host has none: a UTF-8 locale and a terminal that claims nothing.
    env.PATH ??= '/usr/bin:/bin:/usr/sbin:/sbin';
    env.LANG ??= 'C.UTF-8';
    env.TERM ??= 'dumb';
  }
  options.policy.pass.forEach(take);
  for (const [name, value] of Object.entries(options.defaults ?? {})) env[name] ??= value;
  Object.assign(env, options.overrides ?? {});
  for (const [name, value] of Object.entries(options.policy.set)) {
    if (value.kind === 'plain') {
      env[name] = value.value;
      continue;
    }
    const secret = options.secrets[value.ref];
    // The one place a missing secret value becomes a launch error, on every backend.
    if (secret === undefined) return err(secretUnreadable(name));
    env[name] = secret;
  }
  if (options.egressPort !== undefined) Object.assign(env, proxyEnv(options.egressPort));
  return ok(env);
}

/** Windows variable names are case-insensitive; POSIX ones are not. */
function lookup(hostEnv: HostEnv, name: string, caseInsensitive: boolean): string | undefined {
  if (Object.hasOwn(hostEnv, name)) return hostEnv[name];
  if (!caseInsensitive) return undefined;
  const lower = name.toLowerCase();
  const key = Object.keys(hostEnv).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : hostEnv[key];
}
