/**
 * Which transport a client file is connected with. A file in a project folder never gets a
 * gateway token: it would go wherever the project goes (a commit, say). Such a file gets stdio
 * unless HTTP is asked for (or it was connected over HTTP before), which is refused.
 */
import type { ClientId } from '../../app/clients/client-formats';
import { type Transport, defaultTransport } from '../../app/clients/warden-entry';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, err, ok } from '../../app/result';
import { clientLocations } from './client-locations';
import { type ClientsContext, projectFolderOf } from './clients-context';

/** The transport for `path`: asked for, else the one it is connected with, else the default. */
export function fileTransport(
  ctx: ClientsContext,
  input: { client: ClientId; transport?: Transport },
  path: string,
  connected: Transport | undefined,
): Result<Transport, ContractError> {
  const { client, transport: asked } = input;
  const project = projectFolderOf(path, ctx.locations.home);
  const transport = asked ?? connected ?? (project ? 'stdio' : defaultTransport(client));
  if (transport !== 'http' || !project) return ok(transport);
  const user = clientLocations(client, ctx.locations).find((l) => l.scope === 'user')?.path;
  const instead = `connect it with --transport stdio (its entries then hold no token)${user ? `, or connect only your user file over HTTP (--path ${user})` : ''}`;
  return err({
    kind: 'invalid-input',
    message: `${path} is a file of the project folder ${project}: Warden does not write a gateway token there, where it would go wherever the project goes (a commit, say)`,
    remedy:
      connected === 'http'
        ? `disconnect it, then ${instead}`
        : `${instead}; Warden changed nothing`,
  });
}
