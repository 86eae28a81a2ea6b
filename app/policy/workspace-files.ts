/**
 * Workspace files: names that other programs act on by themselves when the user merely works in a
 * folder (runs `git status`, opens it in an editor, starts an AI client or a shell there). A server
 * that may write a folder could otherwise plant code there that runs later as the user, outside
 * any sandbox: a git hook, `core.fsmonitor` in a repo's config (or a `commondir` that points git at
 * a config of its own), an editor task that runs on opening, a project MCP server. Inside a folder
 * a server may write, those found are kept read-only unless the server's policy excepts them: a
 * server that runs git itself (commits, checkouts) needs `.git` excepted.
 */

/** Kept read-only wherever found below a writable root, file or folder alike. */
export const WORKSPACE_NAMES = [
  '.git',
  '.vscode',
  '.idea',
  '.cursor',
  '.claude',
  '.husky',
  '.mcp.json',
  '.gitmodules',
  '.envrc',
  '.npmrc',
  '.yarnrc.yml',
  '.gitconfig',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
] as const;
export type WorkspaceName = (typeof WORKSPACE_NAMES)[number];

export const isWorkspaceName = (name: string): name is WorkspaceName =>
  (WORKSPACE_NAMES as readonly string[]).includes(name);

/** The workspace names a server's writable folders keep read-only: all but its exceptions. */
export function protectedWorkspaceNames(unprotect: readonly string[] | undefined): WorkspaceName[] {
  const except = new Set(unprotect ?? []);
  return WORKSPACE_NAMES.filter((n) => !except.has(n));
}
