/**
 * How the core's supervisor starts an instance: a server with a command in its sandbox, a remote
 * server through the remote launcher (its HTTP and OAuth code loaded only when a remote server
 * first starts), and either only after the guard layers allow its policy.
 */
import { join } from 'node:path';
import type { ConfigStore } from '../config/config-store';
import { guardedLauncher } from '../config/guarded-launcher';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../gateway/line-transport';
import { routeRemote } from '../remote/route-remote';
import type { SecretStore } from '../secrets/secret-store';
import type { InstanceLauncher } from '../supervisor/launcher';
import { type DefaultLauncherDeps, defaultLauncher } from './default-launcher';

export interface CoreLauncherDeps extends DefaultLauncherDeps {
  wardenHome: string;
  config: ConfigStore;
  secretStore: SecretStore;
  /** Starts servers with a command instead of the sandbox launcher (a test's). */
  launcher: InstanceLauncher | undefined;
  /** Largest JSON-RPC message a remote server's instance relays, in bytes. */
  maxMessageBytes: number | undefined;
}

/** The launcher of a core: local or remote by server, behind the guard layers. */
export function coreLauncher(d: CoreLauncherDeps): InstanceLauncher {
  return guardedLauncher(
    routeRemote(
      d.launcher ??
        defaultLauncher({
          backend: d.backend,
          hostEnv: d.hostEnv,
          grants: d.grants,
          audit: d.audit,
          secrets: d.secrets,
        }),
      async () => {
        const [{ createRemoteLauncher }, { remoteAuthProvider }] = await Promise.all([
          import('../remote/remote-launcher'),
          import('../remote/oauth/remote-auth'),
        ]);
        return createRemoteLauncher({
          grants: d.grants,
          audit: d.audit,
          resolveHeaders: (server) => d.secrets.resolveHeaders(server),
          authProvider: (server, fetchFn) =>
            remoteAuthProvider(server, {
              store: d.secretStore,
              fetchFn,
              lockDir: join(d.wardenHome, 'run'),
            }),
          maxMessageBytes: d.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        });
      },
    ),
    { global: () => d.config.guards() },
  );
}
