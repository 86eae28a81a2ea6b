/**
 * What a session settles before it launches its server: the server as this session launches it,
 * whether the process launched ahead of the session can serve this launch, and whether the server
 * may be launched at all. Kept apart so that the session's launch reads as the launch itself.
 */
import type { Root, Server } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import { withSessionFolders } from '../gateway/roots-session';
import type { AdoptedLaunch, Launched } from './launcher';

/** The stored server with the session's own `folders`, as a copy that the launch keeps. */
export function sessionCopy(
  stored: Readonly<Server> | undefined,
  folders: readonly Root[],
): Server | undefined {
  // A copy: the launch keeps the revision it started with while the stored one moves on.
  return stored ? withSessionFolders(structuredClone(stored), folders) : undefined;
}

/**
 * The process launched before this session, if it was launched for what `server` is now (same
 * revision, confirmed); otherwise it is stopped, and the launch goes on as usual.
 */
export async function takeAdopted(
  adopted: AdoptedLaunch | undefined,
  server: Server | undefined,
): Promise<Launched | undefined> {
  if (!adopted) return undefined;
  if (server?.acknowledged && server.revision === adopted.revision) return adopted.launched;
  await adopted.launched.process.stop();
  return undefined;
}

/** `server` when it may be launched; else why not (it was removed, or not confirmed yet). */
export function launchable(serverName: string, server: Server | undefined): Result<Server, string> {
  if (!server) return err(`the server "${serverName}" no longer exists`);
  if (!server.acknowledged) {
    // The MCP specification asks that a user sees a server's full command before it first runs.
    return err(
      `the command of "${server.name}" has not been confirmed yet; review it in Warden (or with \`warden servers show ${server.name}\`) and confirm it (\`warden servers confirm ${server.name}\`)`,
    );
  }
  return ok(server);
}
