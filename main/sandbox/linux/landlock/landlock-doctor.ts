/**
 * The doctor report of the Landlock backend: the launcher and kernel ABI, how limits are enforced,
 * and, as a degraded check of its own, each protection it lacks next to bubblewrap.
 */
import type { DoctorCheck, DoctorReport } from '../../../../app/contract/doctor';
import type { LinuxHostFacts } from '../host-facts';
import { limitSupport } from '../limits';
import { LANDLOCK_GAPS } from './landlock-gaps';
import { LANDLOCK_ABI, type LandlockFacts } from './landlock-probe';

/** The report for this host when the Landlock backend is the one in use. */
export function landlockDoctorReport(
  landlock: LandlockFacts,
  host: LinuxHostFacts,
  why?: string,
): DoctorReport {
  const checks: DoctorCheck[] = [];
  if (why) {
    checks.push({
      id: 'backend-choice',
      label: 'Why Landlock',
      status: 'degraded',
      detail: why,
      remedy:
        'apply the bubblewrap remedy above for the stronger sandbox; Landlock is used meanwhile',
    });
  }
  checks.push(
    landlock.ok
      ? {
          id: 'landlock',
          label: 'Landlock',
          status: landlock.abi >= LANDLOCK_ABI.scoping ? 'ok' : 'missing',
          detail: `Landlock ABI ${landlock.abi}, launcher ${landlock.launcher}`,
          ...(landlock.abi >= LANDLOCK_ABI.scoping
            ? {}
            : {
                remedy: `ABI ${LANDLOCK_ABI.scoping} (Linux 6.12) is needed to scope signals and abstract Unix sockets: upgrade the kernel, or make bubblewrap usable`,
              }),
        }
      : {
          id: 'landlock',
          label: 'Landlock',
          status: 'missing',
          detail: landlock.detail,
          remedy: landlock.remedy,
        },
    {
      id: 'landlock-gaps',
      label: 'Not given by Landlock (given by bubblewrap)',
      status: 'degraded',
      detail: LANDLOCK_GAPS.join('; '),
      remedy: 'make bubblewrap usable for these protections',
    },
  );
  return {
    platform: 'linux',
    arch: process.arch,
    backend: {
      name: 'landlock',
      available: landlock.ok && landlock.abi >= LANDLOCK_ABI.scoping,
      ...(landlock.ok ? { version: `ABI ${landlock.abi}` } : {}),
    },
    checks,
    limits: limitSupport(host, 'landlock'),
  };
}
