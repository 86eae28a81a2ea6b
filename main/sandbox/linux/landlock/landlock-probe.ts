/**
 * What the Landlock backend can do on this host: where its launcher is, the kernel's Landlock ABI,
 * and whether a real trial (ruleset, no_new_privs, the seccomp filter, exec) succeeds. Each answer
 * that is "no" carries its reason and the exact remedy.
 */
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { findBuiltDir, outsideAsar } from '../../../web/find-renderer-dir';
import { runWithStdinFd } from '../run-with-fd';
import { seccompProgramFor } from '../seccomp-fd';

/** ABI versions that add what a policy may need. */
export const LANDLOCK_ABI = { network: 4, scoping: 6 } as const;

export type LandlockFacts =
  | { ok: true; launcher: string; abi: number }
  | { ok: false; abi: number; detail: string; remedy: string };

const BUILD_REMEDY =
  'install a C compiler (`sudo apt install gcc`) and run "npm run build" in a source checkout, or reinstall the app';

/** The built launcher (out/landlock/landlock-exec), outside the app archive; undefined if none. */
export async function findLandlockLauncher(): Promise<string | undefined> {
  const dir = await findBuiltDir('landlock', 'landlock-exec');
  if (dir === undefined) return undefined;
  const file = join(outsideAsar(dir), 'landlock-exec');
  return access(file, constants.X_OK).then(
    () => file,
    () => undefined,
  );
}

/** Probes the launcher and the kernel; `launcher` overrides the search (tests). */
export async function probeLandlock(launcher?: string): Promise<LandlockFacts> {
  const path = launcher ?? (await findLandlockLauncher());
  if (path === undefined) {
    return {
      ok: false,
      abi: 0,
      detail:
        'the Landlock launcher (out/landlock/landlock-exec) was not built: no C compiler was found at build time',
      remedy: BUILD_REMEDY,
    };
  }
  const version = await runWithStdinFd(path, ['--abi'], undefined);
  const abi = Number.parseInt(version.stdout.trim(), 10);
  if (version.code !== 0 || !Number.isInteger(abi)) {
    return {
      ok: false,
      abi: 0,
      detail: `the Landlock launcher did not run: ${version.stderr.trim()}`,
      remedy: BUILD_REMEDY,
    };
  }
  if (abi < 1) {
    return {
      ok: false,
      abi,
      detail:
        'Landlock is not enabled in this kernel (it needs Linux 5.13+ with "landlock" in the lsm= list)',
      remedy:
        'boot a kernel with Landlock enabled (add "landlock" to the lsm= kernel parameter), or make bubblewrap usable',
    };
  }
  const program = seccompProgramFor(process.arch, { refuseUncountedMemory: false });
  if (!program.ok)
    return { ok: false, abi, detail: program.error.message, remedy: program.error.remedy };
  const trial = await runWithStdinFd(
    path,
    ['--rx', '/usr', '--rx', '/bin', '--seccomp-fd', '3', '--', '/bin/true'],
    program.value,
  );
  if (trial.code !== 0) {
    return {
      ok: false,
      abi,
      detail: `a Landlock sandbox could not be created: ${trial.stderr.trim() || `exit ${trial.code}`}`,
      remedy:
        'make bubblewrap usable instead (see the bubblewrap checks), or report this with the output of `warden doctor`',
    };
  }
  return { ok: true, launcher: path, abi };
}
