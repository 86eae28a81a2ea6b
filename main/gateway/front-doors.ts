/**
 * Starts the front doors of a running core: the local channel for `warden connect` and the
 * Streamable HTTP endpoint, both opening one instance per client session. The HTTP door takes
 * the per-client tokens of client-tokens.ts and proves to the CLI that its port is Warden's.
 */
import type { Core } from '../core/core';
import { ClientTokens, ownerProof } from './client-tokens';
import { type HttpFrontDoor, startHttpFrontDoor } from './http-front-door';
import { DEFAULT_MAX_MESSAGE_BYTES } from './line-transport';
import { type LocalChannelServer, listenLocalChannel } from './local-channel';

/** The gateway's port unless told otherwise; AI client configs point at it. */
export const DEFAULT_GATEWAY_PORT = 47821;

export interface FrontDoors {
  http: HttpFrontDoor;
  local: LocalChannelServer;
  close(): Promise<void>;
}

/** Opens both front doors for `core`. */
export async function startFrontDoors(
  core: Core,
  options: { httpPort: number; maxBodyBytes?: number; maxMessageBytes?: number },
): Promise<FrontDoors> {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const tokens = new ClientTokens(core.wardenHome);
  const ownerKey = await tokens.ownerKey();
  const local = await listenLocalChannel(
    core.wardenHome,
    async (server, client, transport) => {
      if (!core.config.getServer(server)) return `no server named "${server}"`;
      await core.supervisor.open(server, transport, client);
      return undefined;
    },
    maxMessageBytes,
  );
  let http: HttpFrontDoor;
  try {
    http = await startHttpFrontDoor({
      port: options.httpPort,
      isToken: (offered) => tokens.check(offered),
      ownerProof: (port, nonce) => Promise.resolve(ownerProof(ownerKey, port, nonce)),
      maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
      hasServer: (name) => core.config.getServer(name) !== undefined,
      onRefused: ({ server, limit, max, detail }) =>
        core.audit.append({
          kind: 'limit.hit',
          outcome: 'refused',
          server,
          limit,
          value: max,
          detail,
        }),
      openSession: async (name, transport) => {
        const session = await core.supervisor.open(name, transport, 'http');
        return () => session.stop('the client ended the session');
      },
    });
  } catch (error) {
    // A taken port leaves nothing half-open: the local channel goes too.
    await local.close();
    throw error;
  }
  return {
    http,
    local,
    close: async () => {
      await http.close();
      await local.close();
    },
  };
}
