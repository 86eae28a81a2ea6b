/**
 * What a session lends to its roots mediator, and the folders it adds for itself: a folder granted
 * "for this session" joins the policy of that session's launches only, the stored policy unchanged.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Root, Server } from '../../app/policy/policy-schema';
import type { RootsMediator } from './roots-mediator';

/** The session's side of mediation (see instance-session.ts). */
export interface RootsSessionSide {
  instance: string;
  /** The name and version the client gave in its `initialize` (untrusted text), if any. */
  clientName?: () => string | undefined;
  clientCapabilities: () => unknown;
  sendToClient: (message: JSONRPCMessage) => Promise<void>;
  sendToServer: (message: JSONRPCMessage) => Promise<void>;
  /** Real paths of the folders the running instance was launched with. */
  folders: () => readonly string[];
  /** Binds a granted folder: saved already when `always`, else for this session; restarts. */
  grant: (root: Root, always: boolean) => Promise<void>;
}

/** Builds the mediator of one session; the supervisor holds the shared parts. */
export type RootsFactory = (side: RootsSessionSide) => RootsMediator;

/** Adds `folder` to a session's own list; write access wins over read for the same path. */
export function addSessionFolder(list: Root[], folder: Root): void {
  const existing = list.find((r) => r.path === folder.path);
  if (!existing) list.push({ ...folder });
  else if (folder.access === 'write') existing.access = 'write';
}

/** The server as this session launches it: its stored folders plus the session's own. */
export function withSessionFolders(server: Server, extra: readonly Root[]): Server {
  if (extra.length === 0) return server;
  const roots = server.policy.filesystem.roots.map((r) => ({ ...r }));
  for (const folder of extra) addSessionFolder(roots, folder);
  return {
    ...server,
    policy: { ...server.policy, filesystem: { ...server.policy.filesystem, roots } },
  };
}
