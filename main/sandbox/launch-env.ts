/**
 * The environment a server starts with: a minimal base taken from the host, the variables its
 * policy passes through, the values it sets (secrets resolved by the caller), and the proxy
 * variables that point at the egress broker. Nothing else of the host environment leaks in.
 */
import type { EnvPolicy } from '../../../app/policy/policy-schema';

export type HostEnv = Readonly<Record<string, string | undefined>>;

/** Host variables every server gets when they are set on the host. */
export const baseEnvNames: Record<'posix' | 'win32', readonly string[]> = {
  posix: ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL'],
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

/** The variables that send HTTP, HTTPS and other TCP traffic through the egress broker. */
export function proxyEnv(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const socks = `socks5h://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    ALL_PROXY: socks,
    http_proxy: http,
    https_proxy: http,
    all_proxy: socks,
    NO_PROXY: '',
    no_proxy: '',
    NODE_USE_ENV_PROXY: '1',
  };
}

export type EnvError = { kind: 'secret-missing'; name: string; ref: string };

/**
 * Builds the server's environment. Later sources win: base, passed, overrides (HOME, TMPDIR …),
 * set values, then proxy variables, which a policy cannot redirect.
 */
export function buildLaunchEnv(options: {
  family: 'posix' | 'win32';
  hostEnv: HostEnv;
  policy: EnvPolicy;
  secrets: Readonly<Record<string, string>>;
  overrides?: Record<string, string>;
  egressPort?: number;
}): { ok: true; env: Record<string, string> } | { ok: false; error: EnvError } {
  const env: Record<string, string> = {};
  const take = (name: string) => {
    const value = lookup(options.hostEnv, name, options.family === 'win32');
    if (value !== undefined) env[name] = value;
  };
  baseEnvNames[options.family].forEach(take);
  if (env.PATH === undefined && options.family === 'posix')
    env.PATH = '/usr/bin:/bin:/usr/sbin:/sbin';
  options.policy.pass.forEach(take);
  Object.assign(env, options.overrides ?? {});
  for (const [name, value] of Object.entries(options.policy.set)) {
    if (value.kind === 'plain') {
      env[name] = value.value;
      continue;
    }
    const secret = options.secrets[value.ref];
    if (secret === undefined)
      return { ok: false, error: { kind: 'secret-missing', name, ref: value.ref } };
    env[name] = secret;
  }
  if (options.egressPort !== undefined) Object.assign(env, proxyEnv(options.egressPort));
  return { ok: true, env };
}

/** Windows variable names are case-insensitive; POSIX ones are not. */
function lookup(hostEnv: HostEnv, name: string, caseInsensitive: boolean): string | undefined {
  if (Object.hasOwn(hostEnv, name)) return hostEnv[name];
  if (!caseInsensitive) return undefined;
  const lower = name.toLowerCase();
  const key = Object.keys(hostEnv).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : hostEnv[key];
}
