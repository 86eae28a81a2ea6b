/**
 * The fixed parts of the macOS Seatbelt policy: which system locations are readable, which mach
 * services and sysctls a sandboxed server may use, and which locations are never exposed even
 * when a declared root contains them. Kept as named lists so that a reviewer can read them in one
 * place and the golden tests pin every change.
 */
import type { WorkspaceName } from '../../../app/policy/workspace-files';

/** System locations readable by every sandboxed server (programs, libraries, shared data). */
export const systemReadSubpaths: readonly string[] = [
  '/System',
  '/usr',
  '/bin',
  '/sbin',
  '/Library/Apple',
  '/Library/Frameworks',
  '/opt/homebrew',
  '/private/etc',
  '/private/var/db/timezone',
  '/private/var/select',
];

/** Single files and device nodes readable by every sandboxed server. */
export const systemReadLiterals: readonly string[] = [
  '/dev/null',
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
];

/** Device nodes a sandboxed server may write to. */
export const systemWriteLiterals: readonly string[] = ['/dev/null'];

/**
 * Paths whose metadata (not contents) may be read, so that symlinks such as /tmp → /private/tmp
 * and the root directory itself can be resolved.
 */
export const systemMetadataLiterals: readonly string[] = ['/', '/etc', '/var', '/tmp', '/private'];

/**
 * Mach services a server may look up: user and group lookups, logging, notifications, TLS trust
 * evaluation. Not securityd (com.apple.SecurityServer): it would open the user's keychains.
 */
export const machServices: readonly string[] = [
  'com.apple.system.opendirectoryd.libinfo',
  'com.apple.system.opendirectoryd.membership',
  'com.apple.system.logger',
  'com.apple.logd',
  'com.apple.system.notification_center',
  'com.apple.trustd.agent',
  'com.apple.bsd.dirhelper',
];

/** Sysctls a server may read: CPU, memory and OS identification that runtimes ask for at start. */
export const sysctlReadNames: readonly string[] = [
  'hw.activecpu',
  'hw.byteorder',
  'hw.cachelinesize',
  'hw.cpufamily',
  'hw.cputype',
  'hw.l1dcachesize',
  'hw.l2cachesize',
  'hw.logicalcpu',
  'hw.logicalcpu_max',
  'hw.machine',
  'hw.memsize',
  'hw.model',
  'hw.ncpu',
  'hw.nperflevels',
  'hw.packages',
  'hw.pagesize',
  'hw.pagesize_compat',
  'hw.physicalcpu',
  'hw.physicalcpu_max',
  'hw.tbfrequency_compat',
  'hw.vectorunit',
  'kern.argmax',
  'kern.hostname',
  'kern.maxfilesperproc',
  'kern.maxproc',
  'kern.osproductversion',
  'kern.osrelease',
  'kern.ostype',
  'kern.osversion',
  'kern.osvariant_status',
  'kern.secure_kernel',
  'kern.usrstack64',
  'kern.version',
  'machdep.cpu.brand_string',
  'sysctl.proc_cputype',
  'vm.loadavg',
];

/** Sysctl name prefixes a server may read (CPU feature and performance-level detection). */
export const sysctlReadPrefixes: readonly string[] = ['hw.optional.', 'hw.perflevel'];

/**
 * System locations never exposed, whatever the declared roots: credentials, password hashes,
 * privacy databases. Denied last, so no earlier allow can reach them.
 */
export const protectedSystemPaths: readonly string[] = [
  '/Library/Keychains',
  '/Library/Application Support/com.apple.TCC',
  '/private/etc/master.passwd',
  '/private/etc/sudoers',
  '/private/etc/sudoers.d',
  '/private/var/db/dslocal',
  '/private/var/db/sudo',
  '/private/var/root',
];

/** Locations under the user's home never exposed (relative to it), for the same reason. */
export const protectedHomePaths: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  'Library/Keychains',
  'Library/Cookies',
  'Library/Application Support/com.apple.TCC',
];

/**
 * `name` as a regex that matches it whatever the case of its letters: macOS file systems are
 * usually case-insensitive, so `.VSCode` is the `.vscode` folder. Seatbelt's regexes take no
 * `(?i)`, hence a class per letter. Only letters, digits, `.`, `_` and `-` are accepted.
 */
export function caselessRegex(name: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`unsafe workspace name ${name}`);
  const char = (c: string) =>
    c === '.' ? '\\.' : /[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c;
  return [...name].map(char).join('');
}

/**
 * The regex of the workspace names kept read-only below a writable root that lies `depth`
 * components below `/` (one, or none without names; the profile pairs it with that root's
 * `subpath`): a path matches when a component after the root's own is one of the names, as the
 * path itself or a folder it lies in. The root's own
 * components do not count: a writable `~/.claude/skills` is writable, its `x/.claude` is not.
 *
 * Denying writes to a path denies creating it too, so a name is kept even where it does not exist
 * yet: a folder cannot be renamed to it, nor a symlink or a `.git` file (`gitdir: …`) created by
 * that name. Hence `git init` and `git clone` fail in a writable root unless `.git` is excepted,
 * as every git command that writes a repo does; so does anything that unpacks such a name outside
 * `node_modules` (an archive of a project).
 */
export function workspaceRegexes(depth: number, names: readonly WorkspaceName[]): string[] {
  if (names.length === 0) return [];
  const alternatives = [...new Set(names)].map(caselessRegex).join('|');
  return [`${belowRoot(depth)}(${alternatives})(/|$)`];
}

/**
 * What lies in an installed package below a writable root `depth` components below `/`: the
 * workspace names there are not kept (no editor or git runs from them; an install removes them).
 */
export const installedRegex = (depth: number): string =>
  `${belowRoot(depth)}${caselessRegex('node_modules')}/`;

const belowRoot = (depth: number) => `^${'/[^/]+'.repeat(depth)}/([^/]+/)*`;
