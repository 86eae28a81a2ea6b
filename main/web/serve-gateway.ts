/** How `warden serve` reports its MCP gateway on the terminal (see start-gateway.ts). */
import { showUntrusted } from '../../app/text/untrusted-text';
import type { CliIo } from '../cli/cli-io';
import type { Core } from '../core/core';
import type { FrontDoors } from '../gateway/front-doors';
import { startGateway } from '../gateway/start-gateway';

/** Opens the front doors; 'port-taken' (reported) when another program holds the port. */
export async function openGateway(
  core: Core,
  port: number,
  io: CliIo,
): Promise<FrontDoors | 'port-taken' | undefined> {
  const started = await startGateway(core, port);
  const { status } = started;
  if (status.kind === 'port-taken') {
    io.stderr(
      `warden: serve: the MCP gateway's port 127.0.0.1:${port} is held by ${showUntrusted(status.owner)}, not by Warden; AI clients pointed at it would send their requests and tokens there\n`,
    );
    if (status.revoked.length > 0)
      io.stderr(
        `warden: revoked the gateway tokens of ${showUntrusted(status.revoked.join(', '))}, which that program may have received; each gets a new one when Warden's gateway holds its port again\n`,
      );
    io.stderr(
      'warden: remedy: stop that program and run "warden serve" again, or choose another port with --gateway-port N\n',
    );
    return 'port-taken';
  }
  if (!started.doors) {
    io.stderr(
      `warden: warning: the MCP gateway is not running: ${showUntrusted(started.error ?? 'unknown error')}\n`,
    );
    return undefined;
  }
  io.stdout(
    `MCP gateway at ${started.doors.http.url('NAME')} (each AI client gets its own token: warden clients connect CLIENT)\n`,
  );
  for (const change of started.rotated)
    io.stdout(`${showUntrusted(`${change.client} (${change.file})`)}: ${change.message}\n`);
  return started.doors;
}
