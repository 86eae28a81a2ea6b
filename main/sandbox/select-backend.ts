/**
 * Picks the sandbox backend for this platform. A platform without a backend gets one whose
 * compile always fails closed with a typed LaunchError.
 */
import type { DoctorReport } from '../../app/contract/doctor';
import { launchError } from '../../app/contract/launch-error';
import { err } from '../../app/result';
import type { SandboxBackend } from './backend';
import { AHEAD_VARIABLE } from './hidden-paths-ahead';
import { hiddenPathsCache, hiddenPathsCacheDir } from './hidden-paths-cache';
import { checkExistingRoot } from './unsandboxed';
import { backendChoice, linuxBackend } from './linux/landlock/choose-linux-backend';
import { seatbeltBackend } from './macos/seatbelt-backend';
import { windowsBackend } from './windows/windows-backend';

/** A backend that can enforce nothing: every sandboxed launch is refused with `reason`. */
export function unavailableBackend(
  name: string,
  kind: 'unsupported-platform' | 'bwrap-missing',
  reason: string,
  remedy: string,
): SandboxBackend {
  const report: DoctorReport = {
    platform: process.platform,
    arch: process.arch,
    backend: { name, available: false },
    checks: [
      { id: 'backend', label: 'Sandbox backend', status: 'missing', detail: reason, remedy },
    ],
    limits: {
      memoryMb: { enforced: false, how: reason },
      pids: { enforced: false, how: reason },
      cpuSeconds: { enforced: false, how: reason },
      openFiles: { enforced: false, how: reason },
      wallSeconds: { enforced: false, how: reason },
    },
  };
  return {
    name,
    probe: () => Promise.resolve(structuredClone(report)),
    checkRoot: checkExistingRoot,
    compile: () => Promise.resolve(err(launchError(kind, reason, remedy))),
  };
}

/**
 * The backend for this platform (Linux: bubblewrap, else Landlock; macOS: Seatbelt). Warden's own
 * state (`wardenHome`: config, audit log, secrets) is never visible to a sandboxed server.
 */
export function selectBackend(
  platform: NodeJS.Platform = process.platform,
  options: { wardenHome?: string; env?: NodeJS.ProcessEnv } = {},
): SandboxBackend {
  const protectedPaths = options.wardenHome ? [options.wardenHome] : [];
  const env = options.env ?? process.env;
  const aheadToken = env[AHEAD_VARIABLE];
  const hiddenCache = hiddenPathsCache(
    options.wardenHome
      ? {
          dir: hiddenPathsCacheDir(options.wardenHome),
          ...(aheadToken === undefined ? {} : { aheadToken }),
        }
      : {},
  );
  if (platform === 'linux') {
    // WARDEN_BWRAP names a bubblewrap installed somewhere other than /usr/bin.
    const bwrapPath = env.WARDEN_BWRAP;
    return linuxBackend({
      protectedPaths,
      hiddenCache,
      choice: backendChoice(env),
      ...(bwrapPath ? { bwrapPath } : {}),
    });
  }
  if (platform === 'darwin') {
    return seatbeltBackend({ protectedPaths, hiddenCache });
  }
  if (platform === 'win32') return windowsBackend();
  return unavailableBackend(
    'none',
    'unsupported-platform',
    `no sandbox backend for ${platform} yet`,
    'run the server under a supported platform, or turn its isolation off knowingly',
  );
}
