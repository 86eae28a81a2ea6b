/**
 * The managed layer, read-only: the file it comes from, each rule it sets, and, when the file
 * cannot be used, why (every launch is refused until it is fixed).
 */
import type { PolicyView } from '../../../app/contract/policy';
import type { Guards } from '../../../app/policy/guards';
import { limitNames } from '../../../app/policy/policy-schema';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { parentPolicySelectors } from '../store/policy/policy-slice';
import { useRoot } from '../store/store-context';
import { limitLabels } from './limit-labels';

/** Each rule of a managed policy as a label and its value, in the order the screen shows them. */
export function managedRuleLines(p: Guards): { rule: string; label: string; value: string }[] {
  const lines: { rule: string; label: string; value: string }[] = [];
  const add = (rule: string, label: string, value: string) => lines.push({ rule, label, value });
  if (p.isolation?.allowOff === false)
    add('isolation.allowOff', 'Isolation off', 'forbidden: every server runs sandboxed');
  if (p.isolation?.allowBestEffort === false)
    add('isolation.allowBestEffort', 'Best-effort limits', 'forbidden: every limit is enforced');
  if (p.workspace?.allowExceptions === false)
    add(
      'workspace.allowExceptions',
      'Workspace file exceptions',
      'forbidden: every workspace file stays read-only',
    );
  if (p.hiddenPaths?.length)
    add('hiddenPaths', 'Hidden paths', `${p.hiddenPaths.join(', ')} (no server may see them)`);
  if (p.network?.deny?.length)
    add('network.deny', 'Denied destinations', p.network.deny.join(', '));
  if (p.network?.allow)
    add('network.allow', 'Only these destinations', p.network.allow.join(', ') || '(none)');
  for (const name of limitNames) {
    const max = p.limits?.[name];
    if (max !== undefined) add(`limits.${name}`, limitLabels[name], `at most ${max}`);
  }
  if (p.audit?.minRetentionDays !== undefined)
    add('audit.minRetentionDays', 'Audit retention', `at least ${p.audit.minRetentionDays} days`);
  if (p.audit?.minRetentionMb !== undefined)
    add('audit.minRetentionMb', 'Audit retention', `at least ${p.audit.minRetentionMb} MB`);
  return lines;
}

export function ManagedLayerView(props: { managed: PolicyView['managed'] }) {
  const { path, policy, error } = props.managed;
  const lines = policy ? managedRuleLines(policy) : [];
  return (
    <section className="policy-section managed-layer" aria-labelledby="managed-heading">
      <h3 id="managed-heading">
        Managed policy <span className="tag tag-info">read only</span>
      </h3>
      <p className="muted">
        Set by the machine administrator in <code>{showUntrusted(path)}</code>. Its rules win over
        every server and over the settings below; no one can change them here.
      </p>
      {error && (
        <div className="notice notice-error">
          <p>
            <strong>
              The managed policy cannot be used; every server launch is refused until it is fixed.
            </strong>
          </p>
          <p>{showUntrusted(error)}</p>
        </div>
      )}
      {!error && !policy && <p>No managed policy on this machine.</p>}
      {!error && policy && lines.length === 0 && <p>The managed policy sets no rules.</p>}
      {lines.length > 0 && (
        <dl className="managed-rules">
          {lines.map((l) => (
            <div key={l.rule} data-managed-rule={l.rule}>
              <dt>{l.label}</dt>
              <dd>
                {showUntrusted(l.value)}
                <span className="rule-source"> managed {l.rule}</span>
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

/** On every screen while the managed file cannot be used: launches are refused until it is fixed. */
export function ManagedProblemBanner() {
  const problem = useRoot(parentPolicySelectors.managedProblem);
  const navigate = useRoot((s) => s.navigate);
  if (!problem) return null;
  return (
    <div className="notice notice-error banner" role="alert" data-managed-error="">
      <p>
        The managed policy cannot be used, so every server launch is refused until the machine
        administrator fixes it: {showUntrusted(problem)}{' '}
        <button type="button" className="link" onClick={() => navigate({ kind: 'parent-policy' })}>
          Open Policy
        </button>
      </p>
    </div>
  );
}
