/**
 * Starts the front doors of a running core: the local channel for `warden connect` and the
 * Streamable HTTP endpoint, both opening one instance per client session.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-write';
import type { Core } from '../core/core';
import { type HttpFrontDoor, startHttpFrontDoor } from './http-front-door';
import { DEFAULT_MAX_MESSAGE_BYTES } from './line-transport';
import { type LocalChannelServer, listenLocalChannel } from './local-channel';

/** The gateway's port unless told otherwise; AI client configs point at it. */
export const DEFAULT_GATEWAY_PORT = 47821;

export interface FrontDoors {
  http: HttpFrontDoor;
  local: LocalChannelServer;
  token: string;
  close(): Promise<void>;
}

/** The bearer token AI clients use for the HTTP front door; kept so their configs stay valid. */
export async function gatewayToken(wardenHome: string): Promise<string> {
  const path = join(wardenHome, 'gateway-token');
  try {
    const token = (await readFile(path, 'utf8')).trim();
    if (token.length >= 32) return token;
  } catch {
    /* first run */
  }
  const token = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, `${token}\n`);
  return token;
}

/** Opens both front doors for `core`. */
export async function startFrontDoors(
  core: Core,
  options: { httpPort: number; maxBodyBytes?: number; maxMessageBytes?: number },
): Promise<FrontDoors> {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const token = await gatewayToken(core.wardenHome);
  const local = await listenLocalChannel(
    core.wardenHome,
    async (server, client, transport) => {
      if (!core.config.getServer(server)) return `no server named "${server}"`;
      await core.supervisor.open(server, transport, client);
      return undefined;
    },
    maxMessageBytes,
  );
  const http = await startHttpFrontDoor({
    port: options.httpPort,
    token,
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    hasServer: (name) => core.config.getServer(name) !== undefined,
    openSession: async (name, transport) => {
      await core.supervisor.open(name, transport, 'http');
    },
  });
  core.setGateway({ origin: new URL(http.url('x')).origin, token });
  return {
    http,
    local,
    token,
    close: async () => {
      await http.close();
      await local.close();
    },
  };
}
