/**
 * Every launch goes through the guard layers: the server's policy is combined with the managed
 * layer and the global part before the backend compiles it, and a launch they forbid (or a
 * managed file that cannot be read) is refused with the reason, never started.
 */
import type { Guards } from '../../app/policy/guards';
import type { InstanceLauncher } from '../supervisor/launcher';
import { launchPolicy } from './guard-layers';

/** Wraps `inner` so that it only ever sees the effective policy. */
export function guardedLauncher(
  inner: InstanceLauncher,
  deps: {
    global: () => Guards | undefined;
    env?: Readonly<Record<string, string | undefined>>;
  },
): InstanceLauncher {
  return {
    async launch(request) {
      const policy = await launchPolicy(request.server.policy, {
        global: deps.global(),
        ...(deps.env ? { env: deps.env } : {}),
      });
      if (!policy.ok) return policy;
      return inner.launch({ ...request, server: { ...request.server, policy: policy.value } });
    },
  };
}
