/** What each tab of the policy editor is given, and how it edits its section of the draft. */
import type { Policy } from '../../../app/policy/policy-schema';

/** The draft policy, where an edited copy goes, and the core's field errors by path. */
export interface PolicyTabProps {
  policy: Policy;
  onChange: (policy: Policy) => void;
  errors: Record<string, string>;
}

/** One section of the draft, and its editor: a patch is merged into the section. */
export function section<K extends 'network' | 'env' | 'limits'>(
  props: Pick<PolicyTabProps, 'policy' | 'onChange'>,
  key: K,
): [Policy[K], (patch: Partial<Policy[K]>) => void] {
  const current = props.policy[key];
  return [current, (patch) => props.onChange({ ...props.policy, [key]: { ...current, ...patch } })];
}
