/**
 * The entry Warden writes into a client's config in place of an imported server: the stdio
 * command `warden connect NAME` for clients that only take commands, or the Streamable HTTP URL
 * with its bearer token for clients that take URLs. Each in the client's own dialect.
 */
import { type ClientId, clientFormats } from './client-formats';

/** How the `warden` command is invoked on this machine (absolute node + bin path is safest). */
export interface WardenCommand {
  command: string;
  args: string[];
  /** Extra environment for the entry, e.g. WARDEN_HOME when it is not the default. */
  env: Record<string, string>;
}

export interface GatewayAddress {
  /** e.g. `http://127.0.0.1:47821` */
  origin: string;
  token: string;
}

export type Transport = 'stdio' | 'http';

/** The transport a client gets unless the user picks one. */
export function defaultTransport(client: ClientId): Transport {
  return clientFormats[client].takesUrl ? 'http' : 'stdio';
}

/** The JSON value of Warden's entry for `server` in `client`'s config. */
export function wardenEntry(
  client: ClientId,
  server: string,
  transport: Transport,
  warden: WardenCommand,
  gateway: GatewayAddress,
  options: { zedLegacy?: boolean; keep?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return { ...options.keep, ...entryBody(client, server, transport, warden, gateway, options) };
}

function entryBody(
  client: ClientId,
  server: string,
  transport: Transport,
  warden: WardenCommand,
  gateway: GatewayAddress,
  options: { zedLegacy?: boolean },
): Record<string, unknown> {
  if (transport === 'http') {
    const url = `${gateway.origin}/mcp/${server}`;
    const headers = { Authorization: `Bearer ${gateway.token}` };
    switch (client) {
      case 'windsurf':
        return { serverUrl: url, headers };
      case 'vscode':
      case 'claude-code':
        return { type: 'http', url, headers };
      default:
        return { url, headers };
    }
  }
  const args = [...warden.args, 'connect', server, '--client', client];
  const env = Object.keys(warden.env).length > 0 ? { env: { ...warden.env } } : {};
  if (client === 'zed' && options.zedLegacy)
    return { command: { path: warden.command, args, ...env } };
  if (client === 'vscode' || client === 'claude-code')
    return { type: 'stdio', command: warden.command, args, ...env };
  return { command: warden.command, args, ...env };
}
