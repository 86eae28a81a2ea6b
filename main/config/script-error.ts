/**
 * The launch check of config-store.ts: a script an interpreter would not see in the sandbox (a
 * remote server has no launch to check).
 */
import type { LaunchSpec, Policy } from '../../app/policy/policy-schema';
import { checkScript } from '../../app/policy/script-check';
import type { ConfigStoreError } from './config-store';

/** A script an interpreter would not find in the sandbox, as a field error of the launch. */
export function scriptError(
  launch: LaunchSpec | undefined,
  policy: Policy,
): ConfigStoreError | undefined {
  if (!launch) return undefined;
  const problem = checkScript(launch, policy);
  if (!problem) return undefined;
  const message = `${problem.message}: ${problem.remedy}`;
  return {
    kind: 'invalid-input',
    message,
    fields: [{ field: `launch.args[${problem.argIndex}]`, message }],
  };
}
