/**
 * Network for `warden exec`: a sandboxed command whose policy allows any network (allowlist or
 * ask) gets the egress broker — the sandbox init as a wrapper, its channel on fd 3, the proxy
 * environment — with refusals printed on stderr and `ask` questions on the terminal. Mode `none`
 * needs nothing: the empty network namespace has no route. Where the sandbox has no network
 * namespace of its own (macOS), the proxy runs in Warden on a host loopback port instead.
 */
import type { LaunchError } from '../../app/contract/launch-error';
import type { Policy } from '../../app/policy/policy-schema';
import { type Result, ok } from '../../app/result';
import { type ExecEgress, prepareExecEgress } from '../egress/exec-egress';
import type { ResolveOverride } from '../egress/resolve-destination';
import { sandboxEgressRuntime } from './launch-instance';

/** Starts egress for one exec run, or nothing when the policy has no network. */
export async function execNetwork(
  policy: Policy,
  stderr: (text: string) => void,
  resolve: readonly ResolveOverride[] = [],
  hostPort = false,
): Promise<Result<ExecEgress | undefined, LaunchError>> {
  if (policy.isolation !== 'sandbox' || policy.network.mode === 'none') return ok(undefined);
  const runtime = await sandboxEgressRuntime(
    'run "npm run build" in a source checkout or reinstall the app, or use --net none',
  );
  if (!runtime.ok) return runtime;
  const prepared = await prepareExecEgress({
    policy,
    runtime: runtime.value,
    stderr,
    hostPort,
    ...(resolve.length > 0 ? { resolve } : {}),
  });
  // An invalid pattern refuses the launch with its field errors kept.
  if (!prepared.ok) return prepared;
  return ok(prepared.value);
}
