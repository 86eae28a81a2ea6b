/** `clients list`: which clients are installed here, and which of their servers go through Warden. */
import { stat } from 'node:fs/promises';
import { readEntries } from '../../app/clients/client-entries';
import { clientFormats, clientIds } from '../../app/clients/client-formats';
import type { ClientStatus } from '../../app/contract/clients';
import { readClientFile } from './client-file';
import { type ClientLocation, clientLocations } from './client-locations';
import type { ClientTokenRecord } from '../gateway/client-tokens';
import type { ClientsContext } from './clients-context';
import { startCommandOutdated } from './stale-entry';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The newest gateway token of a client file, as the status shows it. */
function tokenState(
  tokens: ClientTokenRecord[],
  client: string,
  file: string,
): Pick<ClientStatus['files'][number], 'gatewayToken'> {
  const newest = tokens.filter((t) => t.client === client && t.file === file).at(-1);
  if (!newest) return {};
  return {
    gatewayToken: {
      state: newest.revokedAt ? 'revoked' : 'active',
      createdAt: newest.createdAt,
      ...(newest.revokedWhy ? { revokedWhy: newest.revokedWhy } : {}),
    },
  };
}

/** The status of every known client (and of `picked` files, for the client given with them). */
export async function clientsStatus(ctx: ClientsContext): Promise<ClientStatus[]> {
  const records = await ctx.records.read();
  const tokens = await ctx.tokens.list();
  const out: ClientStatus[] = [];
  for (const client of clientIds) {
    const locations = clientLocations(client, ctx.locations);
    const picked: ClientLocation[] = records.connections
      .filter((c) => c.client === client && !locations.some((l) => l.path === c.file))
      .map((c) => ({ path: c.file, scope: 'picked' as const }));
    const files: ClientStatus['files'] = [];
    let installed = false;
    for (const location of [...locations, ...picked]) {
      if (location.installDir && (await exists(location.installDir))) installed = true;
      const read = await readClientFile(client, location.path);
      const connection = records.connections.find(
        (c) => c.client === client && c.file === location.path,
      );
      const base = {
        path: location.path,
        scope: location.scope,
        connected: connection !== undefined,
        ...(connection ? { backup: connection.backup } : {}),
        ...tokenState(tokens, client, location.path),
      };
      if (!read.ok) {
        installed = true;
        const { message, problem, remedy } = read.error;
        files.push({ ...base, exists: true, error: message, problem, remedy, servers: [] });
        continue;
      }
      if (!read.value) {
        files.push({ ...base, exists: false, servers: [] });
        continue;
      }
      installed = true;
      files.push({
        ...base,
        exists: true,
        servers: readEntries(client, read.value.doc).map((e) => ({
          entryName: e.name,
          kind: e.kind,
          ...(e.kind === 'warden' ? { throughWarden: e.server } : {}),
          ...(connection &&
          e.kind === 'warden' &&
          startCommandOutdated(ctx, client, connection, e.keyPath, read.value!.doc)
            ? { startCommandOutdated: true as const }
            : {}),
        })),
      });
    }
    out.push({ client, label: clientFormats[client].label, installed, files });
  }
  return out;
}
