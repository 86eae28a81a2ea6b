/**
 * The paths a server's own policy hides from it beyond the hidden paths every server has (the
 * Policy screen's), in the Files tab of its policy editor: a narrowing, never an exception. A
 * path every server has hidden already is refused as it is typed, since it would change nothing.
 */
import { useId, useMemo } from 'react';
import { inheritedHiddenPaths } from '../../../app/policy/guards';
import { setOwnHiddenPaths } from '../../../app/policy/policy-edits';
import type { Policy } from '../../../app/policy/policy-schema';
import { parentPolicySelectors } from '../store/policy/policy-slice';
import { useRoot } from '../store/store-context';
import { ChipList } from './chip-list';
import { checkHiddenPath, listItemErrors } from './policy-checks';

export function PolicyHiddenField(props: {
  policy: Policy;
  onChange: (policy: Policy) => void;
  errors: Record<string, string>;
}) {
  const { policy, onChange } = props;
  const id = useId();
  const layers = useRoot(parentPolicySelectors.layers);
  const inherited = useMemo(
    () => inheritedHiddenPaths(layers.global, layers.managed).map((h) => h.path),
    [layers.global, layers.managed],
  );
  const check = (text: string, existing: readonly string[]) =>
    checkHiddenPath(text, existing) ??
    (inherited.includes(text.trim())
      ? `"${text.trim()}" is hidden from every server already`
      : undefined);
  return (
    <section aria-labelledby={`${id}-h`} data-own-hidden>
      <h3 id={`${id}-h`}>Hidden from this server</h3>
      <ChipList
        label="More hidden paths"
        hint="Hidden from this server on top of the hidden paths every server has (Policy screen): ~/PATH, an absolute path, or a file name such as .env.* matched at any depth."
        values={policy.guards?.hide ?? []}
        check={check}
        onChange={(paths) => onChange(setOwnHiddenPaths(policy, paths))}
        placeholder="~/work/drafts"
        itemErrors={listItemErrors(props.errors, 'policy.guards.hide')}
      />
    </section>
  );
}
