/**
 * Workspace files: names that other programs act on by themselves when the user merely works in a
 * folder (runs `git status`, opens it in an editor, starts an AI client or a shell there). A server
 * that may write a folder could otherwise plant code there that runs later as the user, outside
 * any sandbox: a git hook, `core.fsmonitor` in a repo's config (or a `commondir` that points git at
 * a config of its own), the command a commit hook runner's config names, an editor task that runs
 * on opening, a project MCP server, a key that logs in, a command a tool's config names (a dev
 * container's, cargo's, GnuPG's, a cloud CLI's). Inside a folder a server may write, those
 * found are kept read-only unless the server's policy excepts them: a server that runs git itself
 * (commits, checkouts) needs `.git` excepted.
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
  // Yarn 1 runs the file its `yarn-path` names; pnpm runs `.pnpmfile.cjs` at every install.
  '.yarnrc',
  '.pnpmfile.cjs',
  // mise trusts a config by its path: its hooks and `_.source` run at the next prompt there.
  'mise.toml',
  '.mise.toml',
  'mise.local.toml',
  '.mise.local.toml',
  '.mise',
  '.gitconfig',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.bash_logout',
  // Debian's `.bashrc` sources it.
  '.bash_aliases',
  // Mercurial runs a repository's hooks and loads its extensions with any command there.
  '.hg',
  '.hgrc',
  // A writable home: keys that log in, `ProxyCommand`; `~/.config` holds git's, fish's and
  // systemd's user configs and programs started at login. A project's holds lefthook's.
  '.ssh',
  '.config',
  // Commit hook runners: their configs name the commands a commit runs.
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yaml',
  'lefthook.toml',
  '.lefthook.toml',
  'lefthook.json',
  '.lefthook.json',
  'lefthook.jsonc',
  '.lefthook.jsonc',
  'lefthook-local.yml',
  '.lefthook-local.yml',
  'lefthook-local.yaml',
  '.lefthook-local.yaml',
  'lefthook-local.toml',
  '.lefthook-local.toml',
  'lefthook-local.json',
  '.lefthook-local.json',
  'lefthook-local.jsonc',
  '.lefthook-local.jsonc',
  '.lefthook',
  '.lefthook-local',
  // Other AI clients' and editors' project settings, where a project's MCP servers are declared.
  '.gemini',
  '.codex',
  '.continue',
  '.roo',
  '.kiro',
  '.amazonq',
  '.zed',
  '.opencode',
  'opencode.json',
  'opencode.jsonc',
  '.qwen',
  '.kilocode',
  '.junie',
  '.trae',
  'crush.json',
  '.crush.json',
  // Editors and agents that run commands a project's settings name (language servers, linters).
  '.helix',
  '.aider.conf.yml',
  // Run on the host: a dev container's `initializeCommand` once the folder is reopened in one.
  '.devcontainer',
  '.devcontainer.json',
  // Vim and Neovim with 'exrc' run these from the folder they start in; `~/.vimrc` always.
  '.exrc',
  '.vimrc',
  '.nvimrc',
  '.nvim.lua',
  // Commands their configs name run at the next use: cargo's `build.rustc-wrapper` and runners
  // (rust-analyzer runs cargo on opening a project; `~/.cargo/bin` is on the PATH), GnuPG's
  // `pinentry-program` (at a signed commit), the AWS CLI's `credential_process`, kubectl's `exec`
  // credential plugins.
  '.cargo',
  '.gnupg',
  '.aws',
  '.kube',
  // A writable home: `~/.local/bin` is on the PATH of a Debian login; other shells' start files
  // and those of a graphical login.
  '.local',
  '.xsessionrc',
  '.xprofile',
  '.xinitrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.kshrc',
  '.mkshrc',
] as const;
export type WorkspaceName = (typeof WORKSPACE_NAMES)[number];

export const isWorkspaceName = (name: string): name is WorkspaceName =>
  (WORKSPACE_NAMES as readonly string[]).includes(name);

/**
 * A name as a case-insensitive file system may compare it (macOS by default, Windows drives under
 * WSL, vfat, casefold ext4), folded further than any of them so that none finds a name this
 * misses: `.GIT`, `.gıt` (a dotless i), `.ẞh` (fully folded, `.ssh`), `.g\u200cit` (an ignorable
 * code point, dropped), a fullwidth or accented letter (compatibility decomposition, marks dropped).
 */
export function foldName(name: string): string {
  // Printable ASCII, most names by far: lower case is all there is to it.
  if (/^[\x20-\x7e]*$/.test(name)) return name.toLowerCase();
  const plain = name.normalize('NFKD').replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, '');
  // Twice: `ẞ` lowers to `ß`, which uppers to `SS`.
  return plain.toUpperCase().toLowerCase().toUpperCase().toLowerCase();
}

const BY_FOLDED = new Map<string, WorkspaceName>(WORKSPACE_NAMES.map((n) => [foldName(n), n]));

/** The workspace name that `name` is found as where case does not count, if any. */
export const workspaceNameOf = (name: string): WorkspaceName | undefined =>
  BY_FOLDED.get(foldName(name));

/** The workspace names a server's writable folders keep read-only: all but its exceptions. */
export function protectedWorkspaceNames(unprotect: readonly string[] | undefined): WorkspaceName[] {
  const except = new Set(unprotect ?? []);
  return WORKSPACE_NAMES.filter((n) => !except.has(n));
}
