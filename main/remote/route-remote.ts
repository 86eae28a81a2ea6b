/**
 * Sends each launch to the launcher its server needs: remote servers to the remote launcher,
 * loaded on first use (its HTTP client is not needed to start Warden or a local server), every
 * other server to the local one.
 */
import type { InstanceLauncher } from '../supervisor/launcher';

/** `local` for servers with a command, the launcher `loadRemote` gives for remote ones. */
export function routeRemote(
  local: InstanceLauncher,
  loadRemote: () => Promise<InstanceLauncher>,
): InstanceLauncher {
  let remote: Promise<InstanceLauncher> | undefined;
  return {
    async launch(request) {
      if (!request.server.remote) return local.launch(request);
      remote ??= loadRemote();
      return (await remote).launch(request);
    },
  };
}
