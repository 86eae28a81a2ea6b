/**
 * The core's host report: probed while the core is built, or, for a core that relays one session,
 * probed in the background when first asked for. Until then the report claims nothing is enforced.
 */
import type { DoctorReport } from '../../app/contract/doctor';
import type { SandboxBackend } from '../sandbox/backend';

export interface HostReport {
  /** The report now; the first call without one starts the probe. */
  readonly get: () => DoctorReport;
  /** Replaces the report (`host.doctor` probes again). */
  readonly set: (report: DoctorReport) => void;
}

/** The host report of `backend`, starting from `probed` (undefined: probed when first asked). */
export function hostReportOf(
  backend: SandboxBackend,
  probed: DoctorReport | undefined,
): HostReport {
  let report = probed;
  let probing: Promise<DoctorReport> | undefined;
  return {
    get: () => {
      if (report) return report;
      probing ??= backend.probe().then(
        (r) => (report ??= r),
        () => notProbed(backend.name),
      );
      return notProbed(backend.name);
    },
    set: (r) => {
      report = r;
    },
  };
}

/** The report of a host not probed yet: nothing is claimed to be enforced. */
function notProbed(backend: string): DoctorReport {
  const how = 'the host has not been probed yet';
  const limit = { enforced: false, how };
  return {
    platform: process.platform,
    arch: process.arch,
    backend: { name: backend, available: false },
    checks: [
      {
        id: 'backend',
        label: 'Sandbox backend',
        status: 'missing',
        detail: how,
        remedy: 'ask again in a moment, or run warden doctor',
      },
    ],
    limits: {
      memoryMb: limit,
      pids: limit,
      cpuSeconds: limit,
      openFiles: limit,
      wallSeconds: limit,
    },
  };
}
