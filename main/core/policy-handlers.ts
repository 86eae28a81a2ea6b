/** Contract handlers of the global policy and of a server's effective policy. */
import type { ContractError } from '../../app/contract/contract-error';
import type { PolicyView } from '../../app/contract/policy';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { effectivePolicy } from '../../app/policy/effective-policy';
import { globalGuards } from '../../app/policy/guards';
import { err, ok } from '../../app/result';
import type { ConfigStore } from '../config/config-store';
import { loadGuardLayers, loadManagedPolicy, managedPolicyPath } from '../config/guard-layers';
import { storedRevision } from '../config/stored-revision';
import type { Handlers } from './contract-router';
import { guardsChanged, settingChanged } from './settings-edits';

/** The global part as stored and applied, its revision, and the managed layer. */
export async function policyView(config: ConfigStore): Promise<PolicyView> {
  const path = managedPolicyPath();
  const explicit = (process.env.WARDEN_MANAGED_POLICY ?? '').trim() !== '';
  const managed = await loadManagedPolicy(path, {
    requireRootOwner: !explicit && process.platform !== 'win32',
  });
  const stored = config.guards();
  return {
    stored: stored ?? null,
    revision: storedRevision(stored),
    applied: globalGuards(stored),
    managed: managed.ok
      ? { path, policy: managed.value ?? null }
      : { path, policy: null, error: `${managed.error.message} (${managed.error.remedy})` },
  };
}

/**
 * `policy.get`, `policy.update` and `servers.effective`; `published` hears the view after each
 * change made here.
 */
export function createPolicyHandlers(
  config: ConfigStore,
  record: (event: AuditEventInput) => void,
  published: (view: PolicyView) => void,
): Pick<Handlers, 'policy.get' | 'policy.update' | 'servers.effective'> {
  return {
    'policy.get': async () => ok(await policyView(config)),
    'policy.update': async ({ guards, expectedRevision }) => {
      const before = config.guards();
      const saved = await config.setGuards(guards, expectedRevision);
      if (!saved.ok)
        return err<ContractError>({
          kind: saved.error.kind === 'conflict' ? 'conflict' : 'invalid-input',
          message: saved.error.message,
          ...('fields' in saved.error ? { fields: saved.error.fields } : {}),
        });
      // A change of the guards every server inherits is a policy change of every server.
      const changed = guardsChanged(before, saved.value);
      if (changed.length > 0) record(settingChanged(changed));
      const view = await policyView(config);
      published(view);
      return ok(view);
    },
    'servers.effective': async ({ name }) => {
      const server = config.readServer(name);
      if (!server)
        return err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` });
      const layers = await loadGuardLayers({ global: config.guards() });
      if (!layers.ok)
        return err<ContractError>({
          kind: 'policy-forbidden',
          message: layers.error.message,
          remedy: layers.error.remedy,
          rule: `managed policy file ${layers.error.path}`,
        });
      const effective = effectivePolicy(server.policy, layers.value);
      if (!effective.ok)
        return err<ContractError>({
          kind: 'policy-forbidden',
          message: effective.error.message,
          remedy: effective.error.remedy,
          rule: effective.error.rule,
        });
      return ok({ lines: effective.value.lines });
    },
  };
}
