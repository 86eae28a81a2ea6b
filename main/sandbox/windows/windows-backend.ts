/**
 * Windows has no sandbox backend yet. Every `isolation: sandbox` server fails closed with a typed
 * LaunchError error (`unsupported-platform`) that names the remedy; the doctor report
 * says the same, so the UI marks each sandboxed server as unavailable. Servers whose policy says
 * `isolation: off` still launch, because the user chose that knowingly.
 */
import type { DoctorReport } from '../../../app/contract/doctor';
import { launchError } from '../../../app/contract/launch-error';
import { err } from '../../../app/result';
import type { SandboxBackend } from '../backend';
import { checkExistingRoot, unsandboxedPlan } from '../unsandboxed';

export const windowsUnavailableReason =
  'MCP Warden has no sandbox for Windows yet, so a server with isolation "sandbox" cannot start here';

export const windowsRemedy =
  'run Warden and the server under WSL (where the Linux sandbox applies), or set this server’s isolation to "off" knowingly';

/** The Windows backend: refuses every sandboxed launch; launches isolation-off servers bare. */
export function windowsBackend(): SandboxBackend {
  const none = { enforced: false, how: 'no sandbox backend on Windows' };
  const report: DoctorReport = {
    platform: 'win32',
    arch: process.arch,
    backend: { name: 'windows', available: false },
    checks: [
      {
        id: 'backend',
        label: 'Sandbox backend',
        status: 'missing',
        detail: windowsUnavailableReason,
        remedy: windowsRemedy,
      },
    ],
    limits: { memoryMb: none, pids: none, cpuSeconds: none, openFiles: none, wallSeconds: none },
  };
  return {
    name: 'windows',
    probe: () => Promise.resolve(structuredClone(report)),
    checkRoot: checkExistingRoot,
    compile: (policy, launch, ctx) =>
      Promise.resolve(
        policy.isolation === 'off'
          ? unsandboxedPlan(policy, launch, ctx, 'win32')
          : err(launchError('unsupported-platform', windowsUnavailableReason, windowsRemedy)),
      ),
  };
}
