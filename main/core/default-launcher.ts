/** The launcher the core uses unless a test gives another: the platform backend plus egress. */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { GrantInbox } from '../egress/grant-inbox';
import type { SandboxBackend } from '../sandbox/backend';
import { unsandboxedBackend } from '../sandbox/unsandboxed';
import type { InstanceLauncher } from '../supervisor/launcher';
import { createSandboxLauncher } from '../supervisor/sandbox-launcher';

export interface DefaultLauncherDeps {
  backend: SandboxBackend;
  hostEnv: Readonly<Record<string, string | undefined>>;
  grants: GrantInbox;
  audit: (event: AuditEventInput) => void;
}

/** Builds the launcher: sandboxed launches through `backend`, `off` through the plain backend. */
export function defaultLauncher(d: DefaultLauncherDeps): InstanceLauncher {
  return createSandboxLauncher({
    backend: d.backend,
    unsandboxed: unsandboxedBackend(),
    hostEnv: d.hostEnv,
    resolveSecrets: () => Promise.resolve({}),
  });
}
