/**
 * The sandbox's view of the filesystem, as bubblewrap arguments. Deny by default: read-only system
 * directories, the few files of /etc that programs need to run (passwd, group and hosts are
 * generated, not the host's), an empty private home and /tmp, the sandbox's own /proc, a minimal
 * /dev, and the declared roots, each checked to be exactly where it says before it is bound.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type LaunchError, launchError } from '../../../app/contract/launch-error';
import type { Root } from '../../../app/policy/policy-schema';
import { type Result, err, ok } from '../../../app/result';
import { repointableRefusal, symlinkOnTheWay } from '../repointable-links';

/** System directories bound read-only (or recreated as the same symlink as on the host). */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** Files and folders of /etc that programs need to load libraries, certificates and time zones. */
export const ETC_ENTRIES = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/timezone',
  // Certificates and TLS configuration only: /etc/ssl/private and /etc/pki/tls/private hold
  // host keys that root (and so a sandbox started by root) could otherwise read.
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/pki/ca-trust',
  '/etc/pki/tls/certs',
  '/etc/pki/tls/openssl.cnf',
  '/etc/crypto-policies',
  '/etc/os-release',
  '/etc/mime.types',
];

/** Places the system view does not let a declared root shadow or replace. */
export const RESERVED = ['/', '/proc', '/dev', '/etc', '/usr', '/tmp'];

/** The generated /etc files, each handed to bwrap on its own fd (`--ro-bind-data`). */
export function generatedEtc(uid: number, gid: number, home: string): Array<[string, string]> {
  const name = uid === 0 ? 'root' : 'sandbox';
  return [
    [
      '/etc/passwd',
      `${name}:x:${uid}:${gid}:${name}:${home}:/bin/sh\n` +
        (uid === 65534 ? '' : 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n'),
    ],
    ['/etc/group', `${name}:x:${gid}:\n` + (gid === 65534 ? '' : 'nogroup:x:65534:\n')],
    ['/etc/hosts', '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'],
    ['/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files\n'],
    ['/etc/hostname', 'sandbox\n'],
  ];
}

/** A root after checking: its real path, which is also the path it was declared as. */
export interface ResolvedRoot {
  path: string;
  access: Root['access'];
}

const invalid = (message: string, remedy: string) =>
  err(launchError('root-invalid', message, remedy));

/**
 * Resolves each declared root: it must exist, and its real path (symlinks and `..` resolved) must
 * be the path it names; otherwise the launch is refused rather than binding something else.
 */
export async function resolveRoots(
  roots: readonly Root[],
): Promise<Result<ResolvedRoot[], LaunchError>> {
  const out: ResolvedRoot[] = [];
  for (const root of roots) {
    if (!root.path.startsWith('/')) {
      return invalid(
        `root "${root.path}" is not an absolute path`,
        'declare the folder by its absolute path',
      );
    }
    const normal = resolve(root.path);
    let real: string;
    try {
      real = await realpath(normal);
    } catch {
      return invalid(
        `root "${root.path}" does not exist`,
        `create ${normal}, or remove it from the server's filesystem roots`,
      );
    }
    if (real !== normal) {
      return invalid(
        `root "${root.path}" resolves to ${real} through a symlink`,
        `declare the real path ${real} instead, so that what is shared is what the policy says`,
      );
    }
    if (RESERVED.includes(real)) {
      return invalid(
        `root "${root.path}" would replace the sandbox's own ${real}`,
        `declare a folder below ${real} instead, or turn isolation off knowingly`,
      );
    }
    out.push({ path: real, access: root.access });
  }
  // Shallow before deep, so a nested root is bound over its parent's bind, not under it.
  out.sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  return ok(out);
}

/** What the sandbox's system view depends on: found once per launch by `probeFsLayout`. */
export interface FsLayout {
  /** The system directories this host has: a directory, or a symlink (such as /bin) and its target. */
  systemDirs: readonly { path: string; symlink?: string }[];
  /** The entries of /proc that the masks below name and this kernel has. */
  procEntries: readonly string[];
}

/**
 * Looks at the host for the system view: which system folders exist and what /proc holds. A few
 * dozen lstat calls, made synchronously: each answers from the kernel's caches in microseconds,
 * where a round trip through the thread pool apiece cost a launch several milliseconds.
 */
export function probeFsLayout(): FsLayout {
  const systemDirs: { path: string; symlink?: string }[] = [];
  for (const dir of SYSTEM_DIRS) {
    const info = lstatSync(dir, { throwIfNoEntry: false });
    if (info?.isSymbolicLink()) systemDirs.push({ path: dir, symlink: readlinkSync(dir) });
    else if (info?.isDirectory()) systemDirs.push({ path: dir });
  }
  const procEntries: string[] = [];
  for (const name of [...READ_ONLY_PROC_DIRS, ...MASKED_PROC_FILES, ...MASKED_PROC_DIRS]) {
    if (lstatSync(`/proc/${name}`, { throwIfNoEntry: false })) procEntries.push(name);
  }
  return { systemDirs, procEntries };
}

/** Read-only binds for the system directories, recreating top-level symlinks such as /bin. */
export function systemArgs(layout: FsLayout): string[] {
  const args: string[] = [];
  for (const dir of layout.systemDirs) {
    if (dir.symlink !== undefined) args.push('--symlink', dir.symlink, dir.path);
    else args.push('--ro-bind', dir.path, dir.path);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', entry, entry);
  return args;
}

/** A host path needed read-only inside: its real path, and the path it was asked for. */
export interface ReadOnlyBind {
  real: string;
  asked: string;
}

/** Resolves the host paths needed read-only inside (e.g. the Node runtime that runs the init). */
export async function resolveReadOnlyBinds(paths: readonly string[]): Promise<ReadOnlyBind[]> {
  const out: ReadOnlyBind[] = [];
  for (const path of paths) {
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined) out.push({ real, asked: resolve(path) });
  }
  return out;
}

/** Binds each real path at the same place, and again where it was asked for when that differs. */
export function extraReadOnlyArgs(binds: readonly ReadOnlyBind[]): string[] {
  return binds.flatMap(({ real, asked }) => [
    '--ro-bind',
    real,
    real,
    ...(real === asked ? [] : ['--ro-bind-try', real, asked]),
  ]);
}

/** /proc files that describe the host's kernel, memory layout or keys: covered by /dev/null. */
export const MASKED_PROC_FILES = [
  'kcore',
  'keys',
  'key-users',
  'timer_list',
  'timer_stats',
  'sched_debug',
  'slabinfo',
  'vmallocinfo',
  'pagetypeinfo',
  'kallsyms',
  'latency_stats',
  'sysrq-trigger',
];
/** /proc folders about host hardware: covered by an empty read-only tmpfs. */
export const MASKED_PROC_DIRS = ['acpi', 'asound', 'scsi'];
/** /proc folders shown read-only. */
export const READ_ONLY_PROC_DIRS = ['sys', 'irq', 'bus', 'fs'];

/**
 * The sandbox's own /proc, masked like Docker's: kernel state that helps an exploit (symbol
 * addresses, slab and vmalloc layout, timers, keys) reads as empty, hardware folders are empty,
 * and /proc/sys, /proc/irq, /proc/bus and /proc/fs are read-only. bubblewrap covers /proc/sys
 * only when it looks writable to the caller, and the directory never does; but the files in it
 * are writable by their owner, and when Warden runs as root the sandbox is uid 0 on the host, so
 * without this a sandbox could rewrite kernel.core_pattern or kernel.modprobe and run code as
 * root outside. (The binds show the host's read-only values, those of its network namespace
 * included.) Only entries this kernel has are covered: bubblewrap needs the target to exist.
 */
export function procArgs(layout: FsLayout): string[] {
  const has = (name: string) => layout.procEntries.includes(name);
  const args = ['--proc', '/proc'];
  for (const dir of READ_ONLY_PROC_DIRS.filter(has)) {
    args.push('--ro-bind', `/proc/${dir}`, `/proc/${dir}`);
  }
  for (const file of MASKED_PROC_FILES.filter(has)) {
    args.push('--ro-bind', '/dev/null', `/proc/${file}`);
  }
  for (const dir of MASKED_PROC_DIRS.filter(has)) {
    args.push('--tmpfs', `/proc/${dir}`, '--remount-ro', `/proc/${dir}`);
  }
  return args;
}

/**
 * Private tmpfs home, /tmp and /dev/shm, minimal /dev. With `sizeBytes` (the memory limit, on
 * bubblewrap 0.8+) the three together hold at most that much, since files in tmpfs are memory an
 * rlimit does not see: /tmp gets half, the home and /dev/shm a quarter each.
 */
export function privateArgs(home: string, sizeBytes?: number): string[] {
  const size = (share: number) =>
    sizeBytes === undefined ? [] : ['--size', String(Math.max(1, Math.floor(sizeBytes * share)))];
  return [
    '--dev',
    '/dev',
    ...size(0.25),
    '--tmpfs',
    '/dev/shm',
    // /dev itself is a tmpfs no limit sizes: read-only, so files go only where they are counted.
    '--remount-ro',
    '/dev',
    ...size(0.5),
    '--tmpfs',
    '/tmp',
    ...size(0.25),
    '--tmpfs',
    home,
  ];
}

const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** A path inside a root that the sandbox must not read: a folder, or anything else. */
export interface MaskTarget {
  path: string;
  directory: boolean;
  /** Masked by its declared path rather than by a name found wherever it is (`pinnedFolders`). */
  byPath?: true;
}

/**
 * Warden's own state (config, audit log, secrets) stays out of every sandbox: a root inside it is
 * refused, and where a root contains it, it is found here to be covered.
 */
export async function findProtectedTargets(
  roots: readonly ResolvedRoot[],
  protectedPaths: readonly string[],
): Promise<Result<MaskTarget[], LaunchError>> {
  const targets: MaskTarget[] = [];
  const writable = roots.filter((r) => r.access === 'write').map((r) => r.path);
  for (const declared of protectedPaths) {
    const link = symlinkOnTheWay(resolve(declared), writable);
    if (link) return err(repointableRefusal(`Warden's own state folder ${declared}`, link));
    const path = await realpath(declared).catch((e: NodeJS.ErrnoException) =>
      e.code === 'ENOENT' ? resolve(declared) : undefined,
    );
    if (path === undefined) return unexamined(declared);
    const inside = roots.find((r) => within(r.path, path));
    if (inside) {
      return invalid(
        `root "${inside.path}" lies inside Warden's own state folder ${path}`,
        'declare a folder outside it; Warden never shares its configuration, audit log or secrets',
      );
    }
    if (!roots.some((r) => within(path, r.path))) continue;
    const info = await lstat(path).catch((e: NodeJS.ErrnoException) =>
      e.code === 'ENOENT' ? undefined : null,
    );
    if (info === null) return unexamined(declared);
    if (info) targets.push({ path, directory: info.isDirectory(), byPath: true });
  }
  return ok(targets);
}

/** A state folder that cannot be looked at (a folder above it closed): neither masked nor shown. */
const unexamined = (declared: string) =>
  invalid(
    `Warden's own state folder ${declared} cannot be looked at, so it could not be covered`,
    'let this user enter every folder on the way to it (chmod u+x)',
  );

/** Covers Warden's own state: an empty tmpfs over a folder, /dev/null over a file. */
export function protectedArgs(targets: readonly MaskTarget[]): string[] {
  return targets.flatMap((t) =>
    t.directory ? ['--tmpfs', t.path] : ['--ro-bind', '/dev/null', t.path],
  );
}

/**
 * Binds the resolved roots, read-only or writable, and each pinned folder onto itself (writable,
 * as the root it lies in), shallow before deep: a pin binds the host's folder, so it must come
 * before any root nested in it, which it would otherwise cover.
 */
export function rootArgs(roots: readonly ResolvedRoot[], pinned: readonly string[] = []): string[] {
  const binds = [
    ...roots.map((r) => ({ path: r.path, write: r.access === 'write' })),
    ...pinned.map((path) => ({ path, write: true })),
  ];
  const depth = (path: string) => path.split('/').length;
  // Stable: at one depth the roots keep their order, and a pin is never a root.
  binds.sort((a, b) => depth(a.path) - depth(b.path));
  return binds.flatMap((b) => [b.write ? '--bind' : '--ro-bind', b.path, b.path]);
}

/**
 * The folders to bind onto themselves so that a server cannot rename them (a mount point cannot
 * be moved: EBUSY): every folder between a root the server may write and a path masked by its
 * declared path. Renaming one would carry the mask away with it, and the next launch, looking for
 * the path by its name, would find nothing there to mask while the real folder showed under its
 * new name (a path found by its name, such as `.env`, is found again wherever it went).
 */
export function pinnedFolders(
  roots: readonly ResolvedRoot[],
  targets: readonly MaskTarget[],
): string[] {
  const pinned = new Set<string>();
  // A folder declared twice is bound twice, the later bind over the earlier: the later one wins.
  const deepestRoot = (path: string) =>
    roots.reduce<ResolvedRoot | undefined>(
      (best, r) =>
        within(path, r.path) && (best === undefined || r.path.length >= best.path.length)
          ? r
          : best,
      undefined,
    );
  for (const target of targets) {
    if (!target.byPath) continue;
    for (let dir = dirname(target.path); dir !== '/' && !pinned.has(dir); dir = dirname(dir)) {
      const root = deepestRoot(dir);
      if (root === undefined) break;
      if (root.access === 'write' && root.path !== dir) pinned.add(dir);
    }
  }
  return [...pinned].sort();
}

/**
 * Masks the hidden paths found inside the roots: an empty read-only folder over a folder, and
 * /dev/null (read-only) over anything else, so the server sees the name but not the contents.
 * Applied after the roots' binds, shallow before deep.
 */
export function hiddenArgs(targets: readonly MaskTarget[]): string[] {
  return targets.flatMap((t) =>
    t.directory ? ['--tmpfs', t.path, '--remount-ro', t.path] : ['--ro-bind', '/dev/null', t.path],
  );
}
