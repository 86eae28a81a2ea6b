/**
 * The proxy variables that send a server's HTTP, HTTPS and other TCP traffic to the egress proxy
 * on 127.0.0.1:`port` (inside the sandbox on Linux, on the host on macOS). With `preloadScript`,
 * Node programs also load the preload that routes `fetch` and `http(s)` through it.
 */

function quoteForNodeOptions(path: string): string {
  return /[\s"\\]/.test(path) ? `"${path.replace(/(["\\])/g, '\\$1')}"` : path;
}

/** Proxy credentials, put in the proxy URLs where the proxy port is on the host's loopback. */
export interface ProxyCredentials {
  user: string;
  /** URL-safe: letters, digits, `-` and `_` only. */
  password: string;
}

/** The variables for a server whose proxy listens on 127.0.0.1:`port`. */
export function proxyEnv(
  port: number,
  preloadScript?: string,
  existingNodeOptions = '',
  credentials?: ProxyCredentials,
): Record<string, string> {
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
    NO_PROXY: '',
    no_proxy: '',
    NODE_USE_ENV_PROXY: '1',
  };
  if (preloadScript !== undefined) {
    env.NODE_OPTIONS =
      `${existingNodeOptions} --require ${quoteForNodeOptions(preloadScript)}`.trim();
  }
  return env;
}
