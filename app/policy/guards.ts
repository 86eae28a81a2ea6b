/**
 * Guards every server inherits: the global part of the config and the managed layer share one
 * format (guards-schema.ts). Hidden paths are masked inside any declared root (the server sees
 * they exist, not what they hold), network deny patterns join each server's own, limits fill in
 * what a server leaves out (the managed layer's are maxima), and `isolation.allowOff` says
 * whether `off` is allowed. This module holds no schema, so a launch can use it without zod.
 */
import type { z } from 'zod';
import type { guardLimitsSchema, guardsSchema, serverGuardsSchema } from './guards-schema';
import { foldName } from './workspace-files';

export type GuardLimits = z.infer<typeof guardLimitsSchema>;
export type Guards = z.infer<typeof guardsSchema>;
export type ServerGuards = z.infer<typeof serverGuardsSchema>;

/** Browser profiles and keychains, where they live on Linux and macOS. */
const BROWSER_AND_KEYCHAIN = [
  '~/.mozilla',
  '~/.config/google-chrome',
  '~/.config/chromium',
  '~/.config/BraveSoftware',
  '~/.config/microsoft-edge',
  '~/.local/share/keyrings',
  '~/Library/Keychains',
  '~/Library/Application Support/Google/Chrome',
  '~/Library/Application Support/Firefox',
  '~/Library/Application Support/BraveSoftware',
  '~/Library/Cookies',
];

/**
 * Where tools keep tokens and passwords in plain text: git's credential store, cloud CLIs, package
 * registries (Maven, Gradle, Cargo, RubyGems, Terraform), Vault, database clients, rclone, s3cmd.
 */
const TOOL_CREDENTIALS = [
  '~/.git-credentials',
  '~/.config/git/credentials',
  '~/.config/gcloud',
  '~/.azure',
  '~/.m2/settings.xml',
  '~/.m2/settings-security.xml',
  '~/.gradle/gradle.properties',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  '~/.pgpass',
  '~/.my.cnf',
  '~/.config/rclone',
  '~/.s3cfg',
];

/** Hidden when the global part names none of its own. Warden's state is always hidden too. */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config/gh',
  '~/.docker/config.json',
  '~/.kube',
  '~/.netrc',
  '~/.npmrc',
  '~/.pypirc',
  ...TOOL_CREDENTIALS,
  ...BROWSER_AND_KEYCHAIN,
  '~/.config/mcp-warden',
  '~/Library/Application Support/mcp-warden',
  '.env',
  '.env.*',
];

/** The global part as it applies: the stored one, with defaults for what it leaves out. */
export function globalGuards(stored: Guards | undefined): {
  hiddenPaths: string[];
  network: { deny: string[]; allow?: string[] };
  limits: GuardLimits;
  isolation: { allowOff: boolean; allowBestEffort: boolean };
  workspace: { allowExceptions: boolean };
  audit: NonNullable<Guards['audit']>;
} {
  const allow = stored?.network?.allow;
  return {
    hiddenPaths: [...(stored?.hiddenPaths ?? DEFAULT_HIDDEN_PATHS)],
    network: { deny: [...(stored?.network?.deny ?? [])], ...(allow ? { allow: [...allow] } : {}) },
    limits: { ...stored?.limits },
    isolation: {
      allowOff: stored?.isolation?.allowOff ?? true,
      allowBestEffort: stored?.isolation?.allowBestEffort ?? true,
    },
    workspace: { allowExceptions: stored?.workspace?.allowExceptions ?? true },
    audit: { ...stored?.audit },
  };
}

const unique = (list: readonly string[]) => [...new Set(list)];

/**
 * The hidden paths of one server: the global ones minus its exceptions, plus its own additions
 * and every managed one (the managed layer's cannot be un-hidden).
 */
export function serverHiddenPaths(
  global: readonly string[],
  managed: readonly string[],
  own: ServerGuards | undefined,
): string[] {
  const unhide = new Set(own?.unhide ?? []);
  return unique([
    ...managed,
    ...global.filter((p) => !unhide.has(p)),
    ...(own?.hide ?? []).filter((p) => !unhide.has(p) || managed.includes(p)),
  ]);
}

/** Where an inherited hidden path comes from; the defaults stand in for an unset global list. */
export type HiddenPathLayer = 'managed' | 'global' | 'default';

/**
 * The hidden paths every server inherits, each with its layer, the managed layer's first: what a
 * server may be excepted from (`unhide`), all but the managed ones (managed-rules.ts).
 */
export function inheritedHiddenPaths(
  global: Guards | undefined,
  managed: Guards | undefined,
): { path: string; layer: HiddenPathLayer }[] {
  const own: HiddenPathLayer = global?.hiddenPaths ? 'global' : 'default';
  const managedPaths = managed?.hiddenPaths ?? [];
  return unique([...managedPaths, ...globalGuards(global).hiddenPaths]).map((path) => ({
    path,
    layer: managedPaths.includes(path) ? 'managed' : own,
  }));
}

/** Expands `~/` against `home`; bare name patterns and absolute paths are returned as they are. */
export function expandHome(path: string, home: string | undefined): string | undefined {
  if (!path.startsWith('~/')) return path;
  if (!home || !home.startsWith('/')) return undefined;
  return `${home.replace(/\/+$/, '')}/${path.slice(2)}`;
}

/**
 * A test of one path segment against bare patterns where `*` is any run of characters, whatever
 * the case of their letters: a case-insensitive file system finds `.env` by `.ENV`.
 */
export function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const alternatives = patterns.map((pattern) =>
    foldName(pattern)
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*'),
  );
  const re = new RegExp(`^(?:${alternatives.join('|')})$`);
  return (name) => re.test(foldName(name));
}

/** A bare pattern (no `/`) is matched by name anywhere below a root; others are paths. */
export const isNamePattern = (path: string): boolean =>
  !path.includes('/') && !path.startsWith('~');
