/**
 * A server's exceptions to the inherited guards, in the Files tab of its policy editor: workspace
 * files it may write in its writable folders (`unprotect`, from the fixed list) and inherited
 * hidden paths it may see (`unhide`). Each shows in red with what it gives away, in the words of
 * guard-exceptions.tsx; a hidden path the managed layer keeps, and every workspace file where a
 * layer allows no exception, is locked with its rule, which the core enforces on save and at
 * every launch whatever this shows.
 */
import { useId, useMemo } from 'react';
import { inheritedHiddenPaths } from '../../../app/policy/guards';
import { exceptHiddenPath, exceptWorkspaceFile } from '../../../app/policy/policy-edits';
import type { Policy } from '../../../app/policy/policy-schema';
import { WORKSPACE_NAMES, isWorkspaceName } from '../../../app/policy/workspace-files';
import { parentPolicySelectors } from '../store/policy/policy-slice';
import { useRoot } from '../store/store-context';
import { ExceptionGroup, ExceptionPath } from './exception-group';
import { usePolicyLocks } from './use-policy-locks';

/** An exception in the words of guard-exceptions.tsx, with what it gives away. */
const writeText = (name: string) => (
  <>
    <strong>Exception:</strong> this server may write the workspace file{' '}
    <ExceptionPath value={name} /> in its writable folders; what it puts there can run as you,
    outside any sandbox.
  </>
);
const seeText = (path: string) => (
  <>
    <strong>Exception:</strong> this server may see the hidden path <ExceptionPath value={path} />{' '}
    and read the secrets kept there.
  </>
);

export function PolicyExceptionsField(props: {
  policy: Policy;
  onChange: (policy: Policy) => void;
  errors: Record<string, string>;
}) {
  const { policy, onChange, errors } = props;
  const id = useId();
  const locks = usePolicyLocks();
  const layers = useRoot(parentPolicySelectors.layers);
  const inherited = useMemo(
    () => inheritedHiddenPaths(layers.global, layers.managed),
    [layers.global, layers.managed],
  );
  const unprotect = policy.guards?.unprotect ?? [];
  const unhide = policy.guards?.unhide ?? [];
  const writable = policy.filesystem.roots.some((r) => r.access === 'write');
  const unprotectLocked = locks.unprotect();
  const fieldError = (list: string, i: number) =>
    errors[`policy.guards.${list}[${i}]`] ?? errors[`policy.guards.${list}`];

  const unhideProblem = (path: string, i: number) => {
    const locked = locks.unhide(path);
    if (locked) return `Locked: ${locked}. Remove this exception to save.`;
    if (!inherited.some((h) => h.path === path))
      return 'Not an inherited hidden path: this exception changes nothing.';
    return fieldError('unhide', i);
  };

  return (
    <section aria-labelledby={`${id}-h`} className="policy-exceptions" data-guard-exceptions>
      <h3 id={`${id}-h`}>Exceptions</h3>
      <p className="hint">
        Warden hides the hidden paths from every server and keeps workspace files read-only in the
        folders it may write. An exception lifts one of these for this server alone; it is shown in
        red wherever the server is.
      </p>
      {policy.isolation === 'off' && (
        <p className="notice notice-warn" role="note">
          Isolation is off: nothing is hidden or kept read-only for this server, exception or not.
        </p>
      )}
      <ExceptionGroup
        list="unprotect"
        title="Workspace files this server may write"
        hint={
          writable
            ? undefined
            : 'No folder is writable: an exception here takes effect once one is.'
        }
        lockedAll={unprotectLocked}
        items={unprotect.map((name, i) => ({
          value: name,
          text: writeText(name),
          problem: unprotectLocked
            ? 'Locked: remove this exception to save.'
            : fieldError('unprotect', i),
        }))}
        empty="None: every workspace file is kept read-only."
        choiceLabel="Workspace file"
        placeholder="Choose a workspace file…"
        choices={WORKSPACE_NAMES.filter((n) => !unprotect.includes(n)).map((n) => ({
          value: n,
          label: n,
        }))}
        addLabel="Allow writing"
        refuse={() => undefined}
        onAdd={(name) => {
          if (isWorkspaceName(name)) onChange(exceptWorkspaceFile(policy, name, true));
        }}
        onRemove={(name) => {
          if (isWorkspaceName(name)) onChange(exceptWorkspaceFile(policy, name, false));
        }}
      />
      <ExceptionGroup
        list="unhide"
        title="Hidden paths this server may see"
        items={unhide.map((path, i) => ({
          value: path,
          text: seeText(path),
          problem: unhideProblem(path, i),
        }))}
        empty="None: every hidden path stays hidden."
        choiceLabel="Hidden path"
        placeholder="Choose a hidden path…"
        choices={inherited
          .filter((h) => !unhide.includes(h.path))
          .map((h) => ({
            value: h.path,
            label: h.layer === 'managed' ? `${h.path} (managed)` : h.path,
          }))}
        addLabel="Allow seeing"
        refuse={locks.unhide}
        onAdd={(path) => onChange(exceptHiddenPath(policy, path, true))}
        onRemove={(path) => onChange(exceptHiddenPath(policy, path, false))}
      />
      {errors['policy.guards'] && <p className="field-error">{errors['policy.guards']}</p>}
    </section>
  );
}
