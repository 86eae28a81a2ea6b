/**
 * Starting the MCP gateway for the app and `warden serve` alike. A port held by another program
 * is an error with its owner named, never a warning: AI clients pointed at it would send their
 * requests and tokens to that program. The tokens they hold are then revoked, and replaced in
 * their files the next time Warden's own gateway holds the port.
 */
import { clientFormats, clientIds } from '../../app/clients/client-formats';
import type { TokenChange } from '../../app/contract/clients';
import type { GatewayStatus } from '../../app/contract/gateway';
import { currentLocationContext } from '../clients/client-locations';
import { clientsContext } from '../clients/clients-context';
import { rotateRevokedTokens } from '../clients/token-rotation';
import type { Core } from '../core/core';
import { ClientTokens } from './client-tokens';
import { type FrontDoors, startFrontDoors } from './front-doors';
import { describePortOwner, findPortOwner } from './port-owner';

export interface GatewayStart {
  doors?: FrontDoors;
  status: GatewayStatus;
  /** Client files that got a new token now that the port is Warden's again. */
  rotated: TokenChange[];
  /** Why the gateway did not start, when not because of its port. */
  error?: string;
}

/**
 * Revokes the tokens no command can: older server detail pages made one for "an HTTP client"
 * that no `clients revoke CLIENT` names. A client's own (by id, or by the name older pages filed
 * it under) stays.
 */
async function revokeOrphanTokens(wardenHome: string): Promise<void> {
  const names = new Set<string>([...clientIds, ...clientIds.map((c) => clientFormats[c].label)]);
  await new ClientTokens(wardenHome).revokeUnknown(
    (client) => names.has(client),
    'made for an HTTP client by a server detail page of an older Warden, which no command revokes',
  );
}

/** Starts the front doors on `port` and records the outcome in `core.gateway`. */
export async function startGateway(core: Core, port: number): Promise<GatewayStart> {
  let started: GatewayStart;
  try {
    const doors = await startFrontDoors(core, { httpPort: port });
    await revokeOrphanTokens(core.wardenHome);
    const rotated = await rotateRevokedTokens(
      clientsContext({
        wardenHome: core.wardenHome,
        config: core.config,
        locations: currentLocationContext(),
      }),
    );
    started = { doors, status: { kind: 'running', port: doors.http.port }, rotated };
  } catch (error) {
    if ((error as { code?: string }).code !== 'EADDRINUSE')
      started = { status: { kind: 'off' }, rotated: [], error: (error as Error).message };
    else {
      const owner = describePortOwner(await findPortOwner(port));
      const revoked = await new ClientTokens(core.wardenHome).revokeAll(
        `127.0.0.1:${port} was held by ${owner}`,
      );
      started = {
        status: {
          kind: 'port-taken',
          port,
          owner,
          revoked: revoked.map((t) => `${t.client} (${t.file})`),
          remedy: `stop that program and start Warden again, or give Warden's gateway another port (warden serve --gateway-port N, or WARDEN_GATEWAY_PORT for the app) and connect the clients again`,
        },
        rotated: [],
      };
    }
  }
  core.gateway.setStatus(started.status);
  return started;
}
