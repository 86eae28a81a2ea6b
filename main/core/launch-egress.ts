/**
 * The egress of one sandboxed launch, set up the same way for the core's launcher and for the
 * launch ahead of a one-session core: the sandbox init and its proxy where the backend has a
 * private network namespace, the proxy on a loopback port of the host where it has none
 * (Seatbelt, Landlock). Every connection's decision goes to `onDecision`.
 */
import type { EgressDecisionEvent } from '../../app/contract/grants';
import type { LaunchError } from '../../app/contract/launch-error';
import type { Result } from '../../app/result';
import type { GrantRequests } from '../egress/grant-inbox';
import { type SandboxBackend, usesHostPortEgress } from '../sandbox/backend';
import { type InstanceEgress, sandboxEgressRuntime } from '../sandbox/launch-instance';
import type { LaunchRequest } from '../supervisor/launcher';

export interface LaunchEgressDeps {
  backend: SandboxBackend;
  /** Where `ask` mode holds unknown destinations; without it they are refused. */
  grants?: GrantRequests;
  onDecision: (e: EgressDecisionEvent) => void;
}

/** Sets up the egress of `request`'s instance; an invalid network pattern refuses the launch. */
export async function launchEgress(
  d: LaunchEgressDeps,
  { server, instanceId }: LaunchRequest,
): Promise<Result<InstanceEgress | undefined, LaunchError>> {
  const runtime = await sandboxEgressRuntime();
  if (!runtime.ok) return runtime;
  const options = {
    network: server.policy.network,
    server: server.name,
    instanceId,
    runtime: runtime.value,
    ...(d.grants ? { grants: d.grants } : {}),
    onDecision: d.onDecision,
    onProblem: (m: string) => console.error(`warden: ${server.name} (${instanceId}): egress: ${m}`),
  };
  // The broker and its proxy are loaded only by a launch that has a network.
  if (await usesHostPortEgress(d.backend))
    return (await import('../egress/host-port-egress')).startHostPortEgress(options);
  // An invalid pattern refuses the launch with its field errors kept.
  return (await import('../egress/start-egress')).startEgress(options);
}
