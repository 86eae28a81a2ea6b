/**
 * An approval card's reason and its "always" patterns: why the call waits, and, for "always",
 * one field per argument holding the rule its value must meet (the exact value to begin with;
 * the user may widen it before saving, and each rule is checked as it is typed).
 */
import { useId } from 'react';
import type { ApprovalReason } from '../../../app/contract/tools';
import { callPatternProblem } from '../../../app/policy/call-patterns';
import { describeHits } from '../../../app/secrets/credential-scan';
import { Untrusted } from './untrusted';

/** The reason a call waits, as one sentence. */
export function approvalReasonText(reason: ApprovalReason): string {
  if (reason.kind === 'tool-approval') return 'This tool asks before each call.';
  const what = describeHits(reason.found);
  return reason.secret
    ? `The arguments carry a secret Warden holds for another server (${what}).`
    : `The arguments carry credentials (${what}).`;
}

/** What is wrong with the edited patterns, or undefined. */
export function patternProblem(tool: string, args: Record<string, string>): string | undefined {
  return callPatternProblem({ tool, args });
}

export function ApprovalPattern(props: {
  tool: string;
  pattern: Record<string, string>;
  onChange: (pattern: Record<string, string>) => void;
}) {
  const id = useId();
  const problem = patternProblem(props.tool, props.pattern);
  const names = Object.keys(props.pattern);
  return (
    <details className="approval-pattern">
      <summary>Argument patterns for “Always allow”</summary>
      <p className="hint">
        A later call of <Untrusted text={props.tool} /> is allowed without asking only when it
        carries exactly these arguments and each value meets its rule: match=REGEX (the whole
        value), one-of=A|B, max-length=N, or equals=JSON.
      </p>
      {names.length === 0 ? (
        <p className="muted">This call has no arguments.</p>
      ) : (
        names.map((name, i) => (
          <div className="field" key={name}>
            <label htmlFor={`${id}-${i}`}>
              <Untrusted text={name} />
            </label>
            <input
              id={`${id}-${i}`}
              value={props.pattern[name]}
              spellCheck={false}
              aria-invalid={problem !== undefined}
              onChange={(e) => props.onChange({ ...props.pattern, [name]: e.target.value })}
            />
          </div>
        ))
      )}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </details>
  );
}
