/**
 * What a sandbox covers inside the declared roots for one launch: the hidden paths it masks
 * (hidden-paths.ts) and the workspace files it keeps read-only in the folders the server may
 * write (workspace-files.ts), found in one walk.
 */
import type { LaunchError } from '../../app/contract/launch-error';
import { hiddenPathsOf } from '../../app/policy/effective-policy';
import type { Policy } from '../../app/policy/policy-schema';
import { protectedWorkspaceNames } from '../../app/policy/workspace-files';
import { type Result, ok } from '../../app/result';
import { enclosingRepository, globalGit, gitRepository, lstatOf, realOf } from './git-repository';
import { type HiddenTarget, findHiddenTargets } from './hidden-paths';
import type { HiddenPathsCache } from './hidden-paths-cache';
import {
  type WorkspaceTarget,
  inWorkspace,
  keptWorkspace,
  workspaceTargets,
} from './workspace-files';
import type { WorkspaceWatchSpec } from './workspace-aside';

export interface PolicyPaths {
  hidden: HiddenTarget[];
  workspace: WorkspaceTarget[];
  /** What to watch for new workspace files while the server runs (a Linux sandbox does). */
  watch?: WorkspaceWatchSpec;
}

/**
 * The hidden paths of `policy` (its own and inherited guards) inside `roots`, for a launch whose
 * host environment is `ctx.hostEnv`, as a backend masks them, and the workspace files it keeps
 * in the roots the server may write (those not excepted): found there by name, and named by the
 * repositories git would read (in any root, or above a writable one) and the user's git configs.
 * `cache` holds the records of earlier searches shared by the backend's launches.
 */
export async function findPolicyPaths(
  roots: readonly { path: string; access: 'read' | 'write' }[],
  policy: Policy,
  ctx: { hostEnv: Readonly<Record<string, string | undefined>>; serverName?: string },
  cache?: HiddenPathsCache,
): Promise<Result<PolicyPaths, LaunchError>> {
  const writable = roots.filter((r) => r.access === 'write').map((r) => r.path);
  const names: string[] =
    writable.length > 0 ? protectedWorkspaceNames(policy.guards?.unprotect) : [];
  const git = names.includes('.git');
  const global = git
    ? globalGit(ctx.hostEnv, writable, names)
    : ok({ kept: [], hooks: [], absent: [] });
  if (!global.ok) return global;
  const home = ctx.hostEnv.HOME;
  const gitCtx = { writable, home, keptNames: names, globalHooks: global.value.hooks };
  const found: WorkspaceTarget[] = global.value.kept.map((k) => ({ ...k, name: '.git' }));
  const dangling: string[] = [];
  const keep = (path: string): LaunchError | undefined => {
    const kept = workspaceTargets(path, gitCtx);
    if (!kept.ok) return kept.error;
    found.push(...kept.value);
    if (danglingLink(path) && inWorkspace(path, writable)) dangling.push(path);
    return undefined;
  };
  for (const root of git ? writable : []) {
    const above = enclosingRepository(root);
    const kept = above && gitRepository(above.gitDir, above.worktree, gitCtx);
    if (kept && !kept.ok) return kept;
    if (kept) found.push(...kept.value.map((k) => ({ ...k, name: '.git' as const })));
  }
  const hidden = await findHiddenTargets(
    roots.map((r) => r.path),
    hiddenPathsOf(policy),
    ctx.hostEnv.HOME,
    undefined,
    {
      cache,
      writable,
      // `HEAD`: a bare repository, found by its own.
      ...(names.length > 0 && { workspace: { names: git ? [...names, 'HEAD'] : names, keep } }),
      ...(ctx.serverName === undefined ? {} : { server: ctx.serverName }),
    },
  );
  if (!hidden.ok) return hidden;
  const workspace = keptWorkspace(found, hidden.value, writable);
  const watch: WorkspaceWatchSpec | undefined =
    names.length > 0
      ? {
          roots: writable,
          names,
          kept: workspace.map((t) => t.path),
          masked: hidden.value.map((h) => h.path),
          dangling,
          absent: global.value.absent,
        }
      : undefined;
  return ok({ hidden: hidden.value, workspace, ...(watch && { watch }) });
}

/** The plan's record of the workspace files `paths` keeps, where it keeps any. */
export const keptFields = (paths: PolicyPaths): { workspaceKept?: string[] } =>
  paths.workspace.length > 0 ? { workspaceKept: paths.workspace.map((t) => t.path) } : {};

/** A symlink that names nothing (the launch leaves one so named alone; the watch follows it). */
const danglingLink = (path: string) =>
  lstatOf(path)?.isSymbolicLink() === true && realOf(path) === undefined;
