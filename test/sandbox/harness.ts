/**
 * Shared fixture for the Linux escape suite: runs `warden exec` in-process against the real
 * bubblewrap backend, and builds a host layout worth escaping to (a home full of credentials,
 * folders outside every declared root). When the host cannot sandbox, the suite is skipped —
 * unless WARDEN_REQUIRE_SANDBOX=1, which CI sets so that a skip becomes a failure.
 */
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { runExecCommand } from '../../main/sandbox/exec-command';
import { type LinuxHostFacts, sandboxUsable } from '../../main/sandbox/linux/host-facts';
import { backendChoice } from '../../main/sandbox/linux/landlock/choose-linux-backend';
import { LANDLOCK_ABI, probeLandlock } from '../../main/sandbox/linux/landlock/landlock-probe';
import { probeLinuxHost } from '../../main/sandbox/linux/probe';

export const sandboxRequired = process.env.WARDEN_REQUIRE_SANDBOX === '1';

/** Whether this host can run the real sandbox, and if not, why; and which backend will run it. */
export async function sandboxStatus(): Promise<{
  usable: boolean;
  reason: string;
  facts?: LinuxHostFacts;
  backend: 'bwrap' | 'landlock';
}> {
  if (process.platform !== 'linux')
    return { usable: false, reason: `not Linux (${process.platform})`, backend: 'bwrap' };
  const facts = await probeLinuxHost(process.env.WARDEN_BWRAP);
  const choice = backendChoice(process.env);
  if (choice !== 'landlock' && sandboxUsable(facts))
    return { usable: true, reason: '', facts, backend: 'bwrap' };
  if (choice !== 'bwrap') {
    // bubblewrap is unusable (or Landlock is forced): the suite runs under the Landlock backend.
    const landlock = await probeLandlock();
    if (landlock.ok && landlock.abi >= LANDLOCK_ABI.scoping)
      return { usable: true, reason: '', facts, backend: 'landlock' };
    const why = landlock.ok
      ? `Landlock ABI ${landlock.abi} is below ${LANDLOCK_ABI.scoping}`
      : landlock.detail;
    if (choice === 'landlock') return { usable: false, reason: why, backend: 'landlock' };
  }
  const missing = [facts.bwrap, facts.userns, facts.seccomp].find((c) => !c.ok);
  return {
    usable: false,
    reason: missing && !missing.ok ? `${missing.detail} (${missing.remedy})` : 'unknown',
    backend: 'bwrap',
  };
}

export const isRoot = process.getuid?.() === 0;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `warden exec FLAGS -- COMMAND…`, output captured. */
export async function wardenExec(
  flags: string[],
  command: string[],
  hostEnv: Record<string, string | undefined> = process.env,
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await runExecCommand(
    [...flags, '--', ...command],
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
    { stdio: 'capture', hostEnv, cwd: tmpdir() },
  );
  return { code, stdout, stderr };
}

/**
 * The host environment of a launch with `home` as HOME and an empty state folder `wardenHome`, so
 * that no config or managed policy of the machine's user changes the guards.
 */
export const isolatedHostEnv = (home: string, wardenHome: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  LANG: 'C.UTF-8',
  WARDEN_HOME: wardenHome,
  WARDEN_MANAGED_POLICY: join(wardenHome, 'no-managed-policy.json'),
});

/** `sh -c SCRIPT` inside the sandbox. */
export const sh = (flags: string[], script: string, hostEnv?: Record<string, string | undefined>) =>
  wardenExec(flags, ['/bin/sh', '-c', script], hostEnv);

export interface Fixture {
  base: string;
  /** Declared read-only root. */
  ro: string;
  /** Declared writable root. */
  rw: string;
  /** A host folder beside the roots that is never declared. */
  outside: string;
  /** A fake home, under the real one, full of credentials; the sandbox's HOME path. */
  home: string;
  hostEnv: Record<string, string>;
  cleanup(): Promise<void>;
}

export const CREDENTIALS = [
  '.ssh/id_ed25519',
  '.aws/credentials',
  '.config/gh/hosts.yml',
  '.netrc',
];

/** Builds the host layout for one test file. */
export async function makeFixture(): Promise<Fixture> {
  const base = await mkdtemp(join(tmpdir(), 'warden-escape-'));
  await chmod(base, 0o755);
  const [ro, rw, outside] = ['ro', 'rw', 'outside'].map((d) => join(base, d)) as [
    string,
    string,
    string,
  ];
  for (const dir of [ro, rw, outside]) await mkdir(dir);
  await writeFile(join(ro, 'readable.txt'), 'ro-content\n');
  await writeFile(join(rw, 'existing.txt'), 'rw-content\n');
  await writeFile(join(outside, 'secret.txt'), 'outside-secret\n');
  const home = await mkdtemp(join(userInfo().homedir, '.warden-escape-home-'));
  for (const rel of CREDENTIALS) {
    await mkdir(join(home, rel, '..'), { recursive: true });
    await writeFile(join(home, rel), `credential ${rel}\n`, { mode: 0o600 });
  }
  const hostEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    AWS_SECRET_ACCESS_KEY: 'host-secret-aws',
    GITHUB_TOKEN: 'host-secret-gh',
    SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.sock',
  };
  return {
    base,
    ro,
    rw,
    outside,
    home,
    hostEnv,
    cleanup: async () => {
      await rm(base, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * Makes `.env` entries appear three ways in a tree with the folders a/deep/one, b/deep/two and
 * c/deep/three below `project`: a new file in a deep folder, a new folder holding one, and a
 * folder renamed to `.env`. Returns the files a server would read (each holds SECRET-…).
 */
export async function addSecretsThreeWays(project: string): Promise<string[]> {
  await writeFile(join(project, 'a/deep/one/.env'), 'SECRET-NEW-FILE\n');
  await mkdir(join(project, 'b/deep/two/fresh'));
  await writeFile(join(project, 'b/deep/two/fresh/.env.local'), 'SECRET-NEW-FOLDER\n');
  await writeFile(join(project, 'c/deep/three/notes'), 'SECRET-RENAMED\n');
  await rename(join(project, 'c/deep/three'), join(project, 'c/deep/.env'));
  return [
    join(project, 'a/deep/one/.env'),
    join(project, 'b/deep/two/fresh/.env.local'),
    join(project, 'c/deep/.env/notes'),
  ];
}
