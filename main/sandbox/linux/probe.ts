/**
 * Finds out what this Linux host can enforce, by asking the kernel and by really starting a tiny
 * bubblewrap sandbox (with and without the seccomp filter): a sysctl can say user namespaces are
 * allowed while a container's own seccomp policy or AppArmor still refuses them.
 */
import { execFile } from 'node:child_process';
import { access, constants, readFile, stat } from 'node:fs/promises';
import { release } from 'node:os';
import { apparmorProfileRemedy } from './apparmor-remedy';
import { probeCgroups, sweepStaleCgroups } from './cgroup-probe';
import {
  type Capability,
  DEFAULT_BWRAP,
  type LinuxHostFacts,
  type SystemdScope,
} from './host-facts';
import { seccompProgramFor } from './seccomp-fd';
import { runWithStdinFd } from './run-with-fd';

export { DEFAULT_BWRAP } from './host-facts';
const PRLIMIT_CANDIDATES = ['/usr/bin/prlimit', '/bin/prlimit'];

async function readTrim(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function bwrapVersion(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: 5000 }, (error, stdout) => {
      resolve(error ? undefined : stdout.trim().replace(/^bubblewrap\s*/, ''));
    });
  });
}

/**
 * `--disable-userns` arrived in bubblewrap 0.8.0. Older versions still run: the seccomp filter
 * refuses unshare, setns and clone with any CLONE_NEW* flag on its own.
 */
export function bwrapHasDisableUserns(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 0 || minor >= 8;
}

/** The namespaces and hardening options of every sandbox, the trial's included. */
export const NAMESPACE_ARGS: readonly string[] = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-net',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--hostname',
  'sandbox',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
];

/** The smallest sandbox that exercises every namespace and option a real launch uses. */
export function trialArgs(withSeccompFd: number | undefined, disableUserns = true): string[] {
  return [
    ...NAMESPACE_ARGS,
    ...(disableUserns ? ['--disable-userns'] : []),
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...(withSeccompFd === undefined ? [] : ['--seccomp', String(withSeccompFd)]),
    '--',
    '/usr/bin/true',
  ];
}

/** Why user namespaces are refused here, and the exact setting that allows them. */
async function usernsRemedy(
  stderr: string,
  bwrapPath: string,
): Promise<{ detail: string; remedy: string }> {
  const apparmor = await readTrim('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
  if (apparmor === '1') {
    return {
      detail: `AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1): ${stderr}`,
      remedy: `${await apparmorProfileRemedy(bwrapPath)}; or, system-wide, \`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\``,
    };
  }
  const clone = await readTrim('/proc/sys/kernel/unprivileged_userns_clone');
  if (clone === '0') {
    return {
      detail: `unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0): ${stderr}`,
      remedy:
        '`sudo sysctl -w kernel.unprivileged_userns_clone=1` and persist it in /etc/sysctl.d/99-userns.conf',
    };
  }
  const max = await readTrim('/proc/sys/user/max_user_namespaces');
  if (max === '0') {
    return {
      detail: `user namespaces are disabled (user.max_user_namespaces=0): ${stderr}`,
      remedy:
        '`sudo sysctl -w user.max_user_namespaces=15000` and persist it in /etc/sysctl.d/99-userns.conf',
    };
  }
  return {
    detail: `bubblewrap could not create its namespaces: ${stderr}`,
    remedy:
      'allow unprivileged user namespaces on this host; inside a container, run it with a seccomp/AppArmor ' +
      'profile that permits unshare(CLONE_NEWUSER) (e.g. docker --security-opt seccomp=unconfined), or use a VM',
  };
}

function kernelAtLeast(version: string, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

/** Probes the host. `bwrapPath` is injectable so tests can simulate a missing bubblewrap. */
export async function probeLinuxHost(bwrapPath: string = DEFAULT_BWRAP): Promise<LinuxHostFacts> {
  const kernel = release();
  const isRoot = process.getuid?.() === 0;
  let prlimitPath: string | null = null;
  for (const candidate of PRLIMIT_CANDIDATES) {
    if (await executable(candidate)) {
      prlimitPath = candidate;
      break;
    }
  }
  const facts: LinuxHostFacts = {
    kernel,
    isRoot,
    bwrap: { ok: false, detail: '', remedy: '' },
    userns: {
      ok: false,
      detail: 'not tried: bubblewrap is missing',
      remedy: 'install bubblewrap first',
    },
    seccomp: {
      ok: false,
      detail: 'not tried: bubblewrap is missing',
      remedy: 'install bubblewrap first',
    },
    prlimitPath,
    nprocPerUserns: kernelAtLeast(kernel, 5, 14),
    cgroup: await probeCgroups(),
    systemdScope: await probeSystemdScope(),
  };
  await sweepStaleCgroups(facts.cgroup.pids);
  await sweepStaleCgroups(facts.cgroup.memory);
  const version = (await executable(bwrapPath)) ? await bwrapVersion(bwrapPath) : undefined;
  if (version === undefined) {
    facts.bwrap = {
      ok: false,
      detail: `bubblewrap was not found at ${bwrapPath}`,
      remedy:
        'install bubblewrap: `sudo apt install bubblewrap` (Debian/Ubuntu), `sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch)',
    };
    return facts;
  }
  facts.bwrap = { ok: true, path: bwrapPath, version };
  const disableUserns = bwrapHasDisableUserns(version);
  // One full trial (namespaces and the filter) in the common case; a second, without the filter,
  // only when it fails, to tell blocked user namespaces from a missing seccomp.
  const seccomp = await probeSeccomp(bwrapPath, disableUserns);
  if (seccomp.ok) {
    facts.userns = {
      ok: true,
      detail: 'bubblewrap created user, pid, net, ipc and uts namespaces',
    };
    facts.seccomp = seccomp;
    return facts;
  }
  const bare = await runWithStdinFd(bwrapPath, trialArgs(undefined, disableUserns), undefined);
  if (bare.code !== 0) {
    facts.userns = { ok: false, ...(await usernsRemedy(bare.stderr.trim(), bwrapPath)) };
    facts.seccomp = {
      ok: false,
      detail: 'not tried: no user namespace',
      remedy: facts.userns.remedy,
    };
    return facts;
  }
  facts.userns = { ok: true, detail: 'bubblewrap created user, pid, net, ipc and uts namespaces' };
  facts.seccomp = seccomp;
  return facts;
}

async function probeSeccomp(bwrapPath: string, disableUserns: boolean): Promise<Capability> {
  const program = seccompProgramFor(process.arch);
  if (!program.ok)
    return { ok: false, detail: program.error.message, remedy: program.error.remedy };
  const run = await runWithStdinFd(bwrapPath, trialArgs(3, disableUserns), program.value);
  if (run.code !== 0) {
    return {
      ok: false,
      detail: `bubblewrap could not install the seccomp filter: ${run.stderr.trim()}`,
      remedy:
        'use a kernel built with CONFIG_SECCOMP_FILTER=y (every mainstream distribution kernel is)',
    };
  }
  return {
    ok: true,
    detail: `filter for ${process.arch} installed by bubblewrap (${program.value.length / 8} instructions)`,
  };
}

/**
 * Whether systemd gives this user a scope with memory and task limits: tried for real, the way a
 * launch starts it, since a systemd-run binary without a reachable user manager (a container, a
 * session without lingering) is common.
 */
export async function probeSystemdScope(): Promise<SystemdScope> {
  const remedy =
    'log in through a systemd user session (or `loginctl enable-linger USER`) so that `systemd-run --user --scope` works';
  const systemdRun = ['/usr/bin/systemd-run', '/bin/systemd-run'];
  let path: string | undefined;
  for (const candidate of systemdRun) if (await executable(candidate)) path = path ?? candidate;
  if (path === undefined) return { ok: false, detail: 'systemd-run is not installed', remedy };
  const runtimeDir = process.env.XDG_RUNTIME_DIR ?? `/run/user/${process.getuid?.() ?? 0}`;
  const args = [
    '-i',
    `XDG_RUNTIME_DIR=${runtimeDir}`,
    path,
    ...[
      '--user',
      '--scope',
      '--quiet',
      '--collect',
      '-p',
      'MemoryMax=67108864',
      '-p',
      'TasksMax=16',
    ],
    '--',
    '/bin/true',
  ];
  return new Promise((resolve) => {
    execFile('/usr/bin/env', args, { timeout: 5000 }, (error, _stdout, stderr) => {
      resolve(
        error
          ? {
              ok: false,
              detail: `systemd-run --user --scope failed: ${stderr.trim() || error.message}`,
              remedy,
            }
          : {
              ok: true,
              detail: `systemd user scopes (${path})`,
              systemdRun: path,
              runtimeDir,
            },
      );
    });
  });
}
