/**
 * The Policy screen: the parent policy every server inherits. The managed layer (read only, with
 * the file it comes from), the global part (editable), and the servers excepted from it.
 */
import { useEffect } from 'react';
import { parentPolicySelectors } from '../store/policy/policy-slice';
import { useRoot } from '../store/store-context';
import { PolicyExceptions } from './guard-exceptions';
import { ManagedLayerView } from './managed-layer-view';
import { ParentPolicyForm } from './parent-policy-form';

export function ParentPolicyScreen() {
  const view = useRoot(parentPolicySelectors.view);
  const error = useRoot(parentPolicySelectors.error);
  const load = useRoot((s) => s.loadParentPolicy);
  useEffect(() => void load(), [load]);
  return (
    <section className="panel parent-policy" aria-labelledby="parent-policy-heading">
      <h2 id="parent-policy-heading">Policy</h2>
      <p className="muted">
        Rules every server inherits. A server can narrow them; seeing a hidden path or writing a
        workspace file is an exception, shown in red.
      </p>
      {error && (
        <p className="notice notice-error" role="alert">
          Could not read the policy: {error.message} {error.remedy ?? ''}
        </p>
      )}
      {view && (
        <>
          <ManagedLayerView managed={view.managed} />
          <ParentPolicyForm view={view} />
        </>
      )}
      {!view && !error && <p className="muted">Reading the policy…</p>}
      <PolicyExceptions />
    </section>
  );
}
