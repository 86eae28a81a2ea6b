/** A server's policy as the core stored it, and its effective policy, read through the CLI. */
import type { EffectivePolicyView } from '../../app/contract/policy';
import type { Policy } from '../../app/policy/policy-schema';
import { wardenCli } from '../fixtures';

export async function storedPolicy(
  home: string,
  name: string,
): Promise<{ policy: Policy; effective: EffectivePolicyView }> {
  const shown = JSON.parse(await wardenCli(home, ['servers', 'show', name, '--json'])) as {
    server: { policy: Policy };
  };
  const effective = JSON.parse(
    await wardenCli(home, ['servers', 'show', name, '--effective', '--json']),
  ) as EffectivePolicyView;
  return { policy: shown.server.policy, effective };
}
