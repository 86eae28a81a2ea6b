/**
 * The MCP gateway of `warden serve`. A gateway port held by another program is an error, never
 * a warning: AI clients pointed at it would send their requests and tokens to that program. The
 * tokens they hold are then revoked, and replaced in their files once Warden holds its port.
 */
import { showUntrusted } from '../../app/text/untrusted-text';
import type { CliIo } from '../cli/cli-io';
import { currentLocationContext } from '../clients/client-locations';
import { clientsContext } from '../clients/clients-context';
import { rotateRevokedTokens } from '../clients/token-rotation';
import type { Core } from '../core/core';
import { ClientTokens } from '../gateway/client-tokens';
import { type FrontDoors, startFrontDoors } from '../gateway/front-doors';
import { describePortOwner, findPortOwner } from '../gateway/port-owner';

/** Opens the front doors; 'port-taken' (reported) when another program holds the port. */
export async function openGateway(
  core: Core,
  port: number,
  io: CliIo,
): Promise<FrontDoors | 'port-taken' | undefined> {
  let doors: FrontDoors;
  try {
    doors = await startFrontDoors(core, { httpPort: port });
  } catch (error) {
    if ((error as { code?: string }).code !== 'EADDRINUSE') {
      io.stderr(
        `warden: warning: the MCP gateway is not running: ${showUntrusted(String(error))}\n`,
      );
      return undefined;
    }
    const owner = describePortOwner(await findPortOwner(port));
    const revoked = await new ClientTokens(core.wardenHome).revokeAll(
      `127.0.0.1:${port} was held by ${owner}`,
    );
    io.stderr(
      `warden: serve: the MCP gateway's port 127.0.0.1:${port} is held by ${showUntrusted(owner)}, not by Warden; AI clients pointed at it would send their requests and tokens there\n`,
    );
    if (revoked.length > 0)
      io.stderr(
        `warden: revoked the gateway tokens of ${showUntrusted(revoked.map((t) => `${t.client} (${t.file})`).join(', '))}, which that program may have received; each gets a new one when Warden's gateway holds its port again\n`,
      );
    io.stderr(
      'warden: remedy: stop that program and run "warden serve" again, or choose another port with --gateway-port N\n',
    );
    return 'port-taken';
  }
  io.stdout(
    `MCP gateway at ${doors.http.url('NAME')} (each AI client gets its own token: warden clients connect CLIENT)\n`,
  );
  const ctx = clientsContext({
    wardenHome: core.wardenHome,
    config: core.config,
    locations: currentLocationContext(),
  });
  for (const change of await rotateRevokedTokens(ctx))
    io.stdout(`${showUntrusted(`${change.client} (${change.file})`)}: ${change.message}\n`);
  return doors;
}
