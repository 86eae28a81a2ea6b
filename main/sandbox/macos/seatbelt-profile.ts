/**
 * Generates the deny-default Seatbelt (SBPL) profile for one sandboxed server. Pure: paths from
 * the policy or the host never appear in the profile text; each one is passed to sandbox-exec as
 * a `-D NAME=value` parameter and referenced as `(param "NAME")`, so a path holding quotes,
 * parentheses or newlines cannot change the profile's meaning.
 *
 * Seatbelt applies the last rule that matches, so the profile is ordered:
 *   1. deny default (tagged, so violations can be found in the unified log)
 *   2. process, mach, sysctl and system read rules
 *   3. declared roots, shallowest first, so a deeper root's declaration wins over its parent's,
 *      then the workspace files below the writable ones, kept read-only over every root
 *   4. the private directory, then network (only the egress broker's loopback port)
 *   5. hard denies (credentials, Warden's own state), after every allow: nothing overrides them
 */
import { dirname } from 'node:path';
import { WORKSPACE_NAMES, type WorkspaceName } from '../../../app/policy/workspace-files';
import {
  machServices,
  protectedSystemPaths,
  systemMetadataLiterals,
  systemReadLiterals,
  systemReadSubpaths,
  systemWriteLiterals,
  sysctlReadNames,
  sysctlReadPrefixes,
  installedRegex,
  workspaceRegexes,
} from './seatbelt-rules';

export interface SeatbeltRoot {
  /** Absolute, already resolved (realpath) path. */
  path: string;
  access: 'read' | 'write';
}

export interface SeatbeltProfileInput {
  /** Log tag for violations; letters, digits, `_` and `-` only. */
  tag: string;
  roots: readonly SeatbeltRoot[];
  /** The instance's private directory (home and temp), resolved; readable and writable. */
  privateDir: string;
  /** The resolved program, when it lives outside the system locations; readable and executable. */
  program?: string;
  /** Single files Warden gives the server to read (the fetch preload), each alone: not its folder. */
  readableFiles?: readonly string[];
  /** Loopback port of the host-side egress broker; absent means no network at all. */
  egressPort?: number;
  /** Absolute paths never exposed (the user's credentials, Warden's own state), resolved. */
  protectedPaths: readonly string[];
  /**
   * Hidden paths found inside the roots (credentials, `.env` files), resolved: the server may see
   * that they exist, but never read, map or write them.
   */
  hiddenPaths?: readonly { path: string; directory: boolean }[];
  /**
   * The workspace names (app/policy/workspace-files.ts) kept read-only below the writable roots,
   * by name, at any depth: every one when absent.
   */
  workspaceNames?: readonly WorkspaceName[];
  /**
   * Workspace files found below the writable roots, resolved. Those no name reaches (a git folder
   * that a `.git` file names elsewhere) are kept read-only by a rule of their own.
   */
  workspacePaths?: readonly string[];
}

export interface SeatbeltProfile {
  text: string;
  /** `-D` parameters in the order they are passed; names are referenced by the text. */
  params: [string, string][];
}

const TAG = /^[A-Za-z0-9_-]{1,64}$/;
/** Reading a file includes testing that it exists and mapping it as code (dylibs, addons). */
const READ = 'file-read* file-test-existence file-map-executable';
/** Constants pasted into the text must not need escaping. */
const SAFE_LITERAL = /^[A-Za-z0-9 ._/@-]+$/;

/** Builds the profile text and its parameters; throws on input that the caller must validate. */
export function buildSeatbeltProfile(input: SeatbeltProfileInput): SeatbeltProfile {
  if (!TAG.test(input.tag))
    throw new Error(`invalid Seatbelt log tag ${JSON.stringify(input.tag)}`);
  const port = input.egressPort;
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    throw new Error(`invalid egress port ${String(port)}`);
  }
  const params: [string, string][] = [];
  const param = (name: string, value: string): string => {
    if (!value.startsWith('/') || value.includes('\0')) {
      throw new Error(`Seatbelt parameter ${name} must be an absolute path without NUL`);
    }
    params.push([name, value]);
    return `(param "${name}")`;
  };
  const lines: string[] = [];
  const tagged = `(with message "${input.tag}")`;

  lines.push('(version 1)', `(deny default ${tagged})`, '');
  lines.push('; processes: children inherit this sandbox; signals and inspection stay inside it');
  lines.push('(allow process-exec)', '(allow process-fork)');
  lines.push('(allow signal (target same-sandbox))', '(allow process-info* (target same-sandbox))');
  lines.push('; JIT compilers (V8, JavaScriptCore) map executable memory');
  lines.push('(allow dynamic-code-generation)');
  lines.push('', '; named mach services and sysctls only');
  lines.push(`(allow mach-lookup${list(machServices.map((s) => `(global-name ${lit(s)})`))})`);
  lines.push('(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))');
  lines.push(
    `(allow sysctl-read${list([
      ...sysctlReadNames.map((s) => `(sysctl-name ${lit(s)})`),
      ...sysctlReadPrefixes.map((s) => `(sysctl-name-prefix ${lit(s)})`),
    ])})`,
  );
  lines.push('', '; system locations: read only');
  lines.push(`(allow ${READ}${list(systemReadSubpaths.map((p) => `(subpath ${lit(p)})`))})`);
  lines.push(`(allow file-read*${list(systemReadLiterals.map((p) => `(literal ${lit(p)})`))})`);
  lines.push(
    `(allow file-write-data${list(systemWriteLiterals.map((p) => `(literal ${lit(p)})`))})`,
  );

  const ancestors = ancestorsOf([
    ...input.roots.map((r) => r.path),
    input.privateDir,
    ...(input.program ? [input.program] : []),
    ...(input.readableFiles ?? []),
  ]);
  const metadata = [
    ...systemMetadataLiterals.map((p) => `(literal ${lit(p)})`),
    ...ancestors.map((p, i) => `(literal ${param(`ANCESTOR_${i}`, p)})`),
  ];
  lines.push('', '; directories above the declared paths: metadata only, so paths resolve');
  lines.push(`(allow file-read-metadata file-test-existence${list(metadata)})`);

  if (input.program) {
    lines.push('', '; the server program itself');
    lines.push(`(allow ${READ} (literal ${param('PROGRAM', input.program)}))`);
  }

  const files = input.readableFiles ?? [];
  if (files.length > 0) lines.push('', '; files Warden adds for the server (the fetch preload)');
  files.forEach((file, i) =>
    lines.push(`(allow ${READ} (literal ${param(`READABLE_${i}`, file)}))`),
  );

  const roots = orderRoots(input.roots);
  const writable: { path: string; ref: string }[] = [];
  if (roots.length > 0) lines.push('', '; declared roots, shallowest first: a deeper root wins');
  roots.forEach((root, i) => {
    if (root.access === 'write') {
      const p = param(`WRITE_ROOT_${i}`, root.path);
      writable.push({ path: root.path, ref: p });
      lines.push(`(allow ${READ} file-write* (subpath ${p}))`);
    } else {
      const p = param(`READ_ROOT_${i}`, root.path);
      lines.push(`(allow ${READ} (subpath ${p}))`, `(deny file-write* ${tagged} (subpath ${p}))`);
    }
  });

  const workspace = workspaceRules(writable, input, param);
  if (workspace.filters.length > 0) {
    lines.push('', '; workspace files below the writable roots: read-only, even before they exist');
    lines.push(`(deny file-write* ${tagged}${list(workspace.filters)})`);
  }

  lines.push('', '; the private home and temp directory of this instance');
  lines.push(`(allow ${READ} file-write* (subpath ${param('PRIVATE_DIR', input.privateDir)}))`);

  lines.push('', '; network: only the egress broker on loopback');
  if (port === undefined) {
    lines.push('; (none: deny default refuses every socket connection and bind)');
  } else {
    lines.push(`(allow network-outbound (remote ip "localhost:${port}"))`);
  }

  const protectedFilters = [
    ...protectedSystemPaths.map((p) => `(subpath ${lit(p)})`),
    ...input.protectedPaths.map((p, i) => `(subpath ${param(`PROTECTED_${i}`, p)})`),
  ];
  lines.push('', '; never exposed, whatever the roots say: denied after every allow');
  lines.push(`(deny ${READ} file-write* ${tagged}${list(protectedFilters)})`);
  // A set-ID program of the user's runs as the user for anyone: refused wherever it may write.
  lines.push('', '; no set-user-ID or set-group-ID bit on anything');
  lines.push(`(deny file-write-setugid ${tagged})`);
  const hidden = (input.hiddenPaths ?? []).map(
    (h, i) => `(${h.directory ? 'subpath' : 'literal'} ${param(`HIDDEN_${i}`, h.path)})`,
  );
  if (hidden.length > 0) {
    lines.push('', '; hidden inside the roots: seen to exist, never read, mapped or written');
    lines.push(
      `(deny file-read-data file-read-xattr file-map-executable file-write* ${tagged}${list(hidden)})`,
    );
  }
  // A rule names a path, so a folder renamed would carry what it holds out from under it; to
  // Seatbelt a rename is an unlink of its source.
  const holding = ancestorsOf([
    ...input.protectedPaths,
    ...(input.hiddenPaths ?? []).map((h) => h.path),
    ...(input.workspacePaths ?? []),
  ]);
  if (holding.length > 0) {
    lines.push('', '; the folders that hold them: never renamed or removed');
    lines.push(
      `(deny file-write-unlink ${tagged}${list(holding.map((p, i) => `(literal ${param(`HOLDING_${i}`, p)})`))})`,
    );
  }
  return { text: `${lines.join('\n')}\n`, params };
}

/**
 * The filters for the workspace files below the writable roots: each root's `subpath` with a
 * regex per name kept (seatbelt-rules.ts), and the paths found that no name reaches (`byPath`).
 * After every root's allow, so that a deeper writable root does not make them writable again.
 */
function workspaceRules(
  writable: readonly { path: string; ref: string }[],
  input: SeatbeltProfileInput,
  param: (name: string, value: string) => string,
): { filters: string[]; byPath: string[] } {
  const names = input.workspaceNames ?? WORKSPACE_NAMES;
  const rules = writable.map((root) => ({
    ...root,
    regexes: workspaceRegexes(depthOf(root.path), names),
  }));
  const filters = rules.flatMap((r) => {
    const installed = `(require-not (regex #"${installedRegex(depthOf(r.path))}"))`;
    return r.regexes.map((re) => `(require-all (subpath ${r.ref}) (regex #"${re}") ${installed})`);
  });
  // A regex holds no path and only names caselessRegex accepts: no quote ends its `#"…"` early.
  const reached = (path: string) =>
    rules.some((r) => within(path, r.path) && r.regexes.some((re) => new RegExp(re).test(path)));
  const byPath = [...new Set(input.workspacePaths ?? [])].filter((p) => !reached(p));
  byPath.forEach((p, i) => filters.push(`(subpath ${param(`WORKSPACE_${i}`, p)})`));
  return { filters, byPath };
}

const depthOf = (p: string) => (p === '/' ? 0 : p.split('/').length - 1);

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

/** Shallowest first; for one path declared twice, read comes last so that it wins. */
function orderRoots(roots: readonly SeatbeltRoot[]): SeatbeltRoot[] {
  return [...roots].sort(
    (a, b) =>
      depthOf(a.path) - depthOf(b.path) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      (a.access === b.access ? 0 : a.access === 'write' ? -1 : 1),
  );
}

/** Every proper ancestor directory of `paths`, except `/`, deduplicated, in a stable order. */
function ancestorsOf(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const path of paths) {
    for (
      let dir = dirname(path);
      dir !== '/' && dir !== '.' && !seen.has(dir);
      dir = dirname(dir)
    ) {
      seen.add(dir);
    }
  }
  return [...seen].sort();
}

function lit(constant: string): string {
  if (!SAFE_LITERAL.test(constant)) throw new Error(`unsafe Seatbelt literal ${constant}`);
  return `"${constant}"`;
}

function list(filters: readonly string[]): string {
  return filters.map((f) => `\n  ${f}`).join('');
}
