/**
 * Warden's own stdio entries in a connected client file that still start an older command: where
 * the file holds an entry exactly as Warden wrote it, and this Warden would write it with another
 * command (an older one may start slower), connecting the file again updates it. An entry the user
 * changed since is theirs and left alone.
 */
import { type ClientId, type KeyPath, isRecord } from '../../app/clients/client-formats';
import { type Transport, wardenEntry } from '../../app/clients/warden-entry';
import type { ConnectionRecord } from './client-records';
import type { ClientsContext } from './clients-context';

/** A recorded entry, with what this Warden writes in its place as `written`. */
export type StaleEntry = ConnectionRecord['entries'][number];

/** The value at `keyPath` in a parsed client file, or undefined. */
export function valueAt(doc: unknown, keyPath: KeyPath): unknown {
  let at: unknown = doc;
  for (const key of keyPath) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/**
 * Warden's stdio entry at `keyPath` of a connected file, rewritten to start this Warden's command,
 * when the file still holds it as Warden wrote it and that was with another command; else
 * undefined. An entry the user changed since is theirs and left alone.
 */
export function staleEntry(
  ctx: ClientsContext,
  client: ClientId,
  transport: Transport,
  connection: ConnectionRecord,
  keyPath: KeyPath,
  doc: unknown,
): StaleEntry | undefined {
  if (transport !== 'stdio' || connection.transport !== 'stdio') return undefined;
  const recorded = connection.entries.find(
    (e) => JSON.stringify(e.keyPath) === JSON.stringify(keyPath),
  );
  const written = recorded?.written;
  if (!recorded || !isRecord(written)) return undefined;
  if (JSON.stringify(valueAt(doc, keyPath)) !== JSON.stringify(written)) return undefined;
  // Zed's legacy form and the keys Zed keeps beside the command, as Warden wrote them.
  const keep: Record<string, unknown> = {};
  if (client === 'zed')
    for (const key of ['source', 'settings']) if (key in written) keep[key] = written[key];
  const current = wardenEntry(client, recorded.server, 'stdio', ctx.warden, NO_GATEWAY, {
    zedLegacy: client === 'zed' && isRecord(written.command),
    keep,
  });
  if (JSON.stringify(current) === JSON.stringify(written)) return undefined;
  return { ...recorded, written: current };
}

/**
 * Whether Warden's entry at `keyPath` of a connected file is as Warden wrote it with another start
 * command than this Warden's (connecting the file again updates it).
 */
export function startCommandOutdated(
  ctx: ClientsContext,
  client: ClientId,
  connection: ConnectionRecord,
  keyPath: KeyPath,
  doc: unknown,
): boolean {
  return staleEntry(ctx, client, connection.transport, connection, keyPath, doc) !== undefined;
}

/** No gateway address: a stdio entry has none. */
const NO_GATEWAY = { origin: '', token: '' };
