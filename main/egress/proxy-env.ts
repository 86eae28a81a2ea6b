/**
 * The proxy variables that send a server's HTTP, HTTPS and other TCP traffic to the egress proxy
 * on 127.0.0.1:`port` (inside the sandbox on Linux, on the host on macOS). With `preloadScript`,
 * Node programs also load the preload that routes `fetch` and `http(s)` through it. `NO_PROXY`
 * says which loopback `localhost` is (app/policy/network-loopback.ts): the sandbox's own, left
 * out of the proxy, or the host's, reached through it.
 */
import { SANDBOX_LOOPBACK_NO_PROXY } from '../../app/policy/network-loopback';

function quoteForNodeOptions(path: string): string {
  return /[\s"\\]/.test(path) ? `"${path.replace(/(["\\])/g, '\\$1')}"` : path;
}

/** Proxy credentials, put in the proxy URLs where the proxy port is on the host's loopback. */
export interface ProxyCredentials {
  user: string;
  /** URL-safe: letters, digits, `-` and `_` only. */
  password: string;
}

export interface ProxyEnvOptions {
  /** The fetch preload, put in NODE_OPTIONS after `existingNodeOptions`. */
  preloadScript?: string;
  existingNodeOptions?: string;
  credentials?: ProxyCredentials;
  /**
   * `sandbox`: loopback is the sandbox's own network namespace's, and stays out of the proxy.
   * `proxy` (the default): every loopback request goes through the proxy, where the broker
   * decides it (the host's loopback, refused unless the policy allows its address).
   */
  loopback?: 'sandbox' | 'proxy';
}

/** The variables for a server whose proxy listens on 127.0.0.1:`port`. */
export function proxyEnv(port: number, options: ProxyEnvOptions = {}): Record<string, string> {
  const { preloadScript, existingNodeOptions = '', credentials } = options;
  const noProxy = options.loopback === 'sandbox' ? SANDBOX_LOOPBACK_NO_PROXY : '';
  const login = credentials ? `${credentials.user}:${credentials.password}@` : '';
  const http = `http://${login}127.0.0.1:${port}`;
  const socks = `socks5h://${login}127.0.0.1:${port}`;
  const env: Record<string, string> = {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    ALL_PROXY: socks,
    http_proxy: http,
    https_proxy: http,
    all_proxy: socks,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
  };
  if (preloadScript !== undefined) {
    env.NODE_OPTIONS =
      `${existingNodeOptions} --require ${quoteForNodeOptions(preloadScript)}`.trim();
  }
  return env;
}
