/**
 * The AI clients Warden imports from and connects back: where each keeps its MCP servers inside
 * its config file, whether that file is JSONC, and whether the client accepts a URL entry.
 */
import { z } from 'zod';

export const clientIds = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'zed',
] as const;
export const clientIdSchema = z.enum(clientIds);
export type ClientId = z.infer<typeof clientIdSchema>;

/** How one client stores its servers. */
export interface ClientFormat {
  id: ClientId;
  label: string;
  /** True when the client reads its file as JSON with comments and trailing commas. */
  jsonc: boolean;
  /** True when the client takes a Streamable HTTP URL entry (else only stdio commands). */
  takesUrl: boolean;
  /** Property holding the server map at the top level of the file. */
  serversKey: 'mcpServers' | 'servers' | 'context_servers';
}

export const clientFormats: Readonly<Record<ClientId, ClientFormat>> = {
  'claude-desktop': {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    jsonc: false,
    takesUrl: false,
    serversKey: 'mcpServers',
  },
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    jsonc: false,
    takesUrl: true,
    serversKey: 'mcpServers',
  },
  cursor: { id: 'cursor', label: 'Cursor', jsonc: false, takesUrl: true, serversKey: 'mcpServers' },
  vscode: { id: 'vscode', label: 'VS Code', jsonc: true, takesUrl: true, serversKey: 'servers' },
  windsurf: {
    id: 'windsurf',
    label: 'Windsurf',
    jsonc: false,
    takesUrl: true,
    serversKey: 'mcpServers',
  },
  zed: { id: 'zed', label: 'Zed', jsonc: true, takesUrl: true, serversKey: 'context_servers' },
};

/** Where in a client file a group of servers lives, e.g. `["projects", "/p", "mcpServers"]`. */
export type KeyPath = (string | number)[];

/** True when `value` is a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The server maps of a parsed client file: the top-level one, plus, for `~/.claude.json`, each
 * project's own map (`projects[path].mcpServers`), with the project folder as workspace.
 */
export function serverGroups(
  client: ClientId,
  doc: Record<string, unknown>,
): { keyPath: KeyPath; servers: Record<string, unknown>; workspace?: string }[] {
  const key = clientFormats[client].serversKey;
  const groups: { keyPath: KeyPath; servers: Record<string, unknown>; workspace?: string }[] = [];
  const top = doc[key];
  if (isRecord(top)) groups.push({ keyPath: [key], servers: top });
  const projects = doc.projects;
  if (client === 'claude-code' && isRecord(projects)) {
    for (const [folder, project] of Object.entries(projects)) {
      if (isRecord(project) && isRecord(project.mcpServers)) {
        groups.push({
          keyPath: ['projects', folder, 'mcpServers'],
          servers: project.mcpServers,
          workspace: folder,
        });
      }
    }
  }
  return groups;
}

/**
 * A problem with the shape of a client file, found before anything is changed, worded to follow
 * the file's name ("… does not hold a JSON object").
 */
export function shapeProblem(client: ClientId, doc: unknown): string | undefined {
  if (!isRecord(doc)) return 'does not hold a JSON object';
  const key = clientFormats[client].serversKey;
  if (key in doc && !isRecord(doc[key])) return `has "${key}" but not as an object`;
  if (client === 'vscode' && 'inputs' in doc && !Array.isArray(doc.inputs))
    return 'has "inputs" but not as an array';
  return undefined;
}
