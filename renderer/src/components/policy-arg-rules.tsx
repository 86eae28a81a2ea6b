/**
 * The Tools tab's argument rules and credential scanning: rules written as the CLI writes them
 * (`TOOL:ARG:RULE`), checked as they are typed, and what happens to credentials in results,
 * calls, the server's requests, and forms that ask the user to type one or links for one.
 */
import { useId } from 'react';
import { RULE_FORMS, argRuleText, parseArgRuleFlag } from '../../../app/policy/arg-rules';
import { callPatternText, parseCallPatternText } from '../../../app/policy/call-patterns';
import type { CredentialMode, Policy } from '../../../app/policy/policy-schema';
import type { Result } from '../../../app/result';
import { ChipList } from './chip-list';

const modes: Array<{ mode: CredentialMode; label: string; hint: string }> = [
  {
    mode: 'redact',
    label: 'Redact',
    hint: 'Credentials in results, notifications and the server’s requests are replaced before the client sees them; a call carrying a secret of another server is refused, one carrying a credential waits for approval; a form the server puts to you that asks you to type a credential, or a link for one that is not https, is refused (default).',
  },
  {
    mode: 'block',
    label: 'Block',
    hint: 'A result, notification or server request holding a credential is withheld, and a form asking you to type one or a link for one that is not https is refused; a call carrying a secret of another server or a credential is refused.',
  },
  {
    mode: 'ask',
    label: 'Ask',
    hint: 'A call carrying a secret of another server or a credential waits for approval; a result, notification or server request holding a credential is withheld, and a form asking you to type one or a link for one that is not https is refused.',
  },
  { mode: 'off', label: 'Off', hint: 'Nothing is scanned, and no form or link is refused.' },
];

function checkRule(text: string, existing: readonly string[]): string | undefined {
  if (text.trim() === '') return undefined;
  const parsed = parseArgRuleFlag(text.trim());
  if (!parsed.ok) return parsed.error;
  return existing.includes(argRuleText(parsed.value)) ? 'this rule is already listed' : undefined;
}

function checkAllowedCall(text: string, existing: readonly string[]): string | undefined {
  if (text.trim() === '') return undefined;
  const parsed = parseCallPatternText(text.trim());
  if (!parsed.ok) return parsed.error;
  return existing.includes(callPatternText(parsed.value))
    ? 'this call is already listed'
    : undefined;
}

/** The values of the chips that parse (a chip that no longer parses is dropped). */
function parsedAll<T>(texts: readonly string[], parse: (text: string) => Result<T, string>): T[] {
  return texts.flatMap((t) => {
    const parsed = parse(t);
    return parsed.ok ? [parsed.value] : [];
  });
}

/** Core errors for the rules, by index. */
function ruleErrors(errors: Record<string, string>): Record<number, string> {
  const out: Record<number, string> = {};
  for (const [field, message] of Object.entries(errors)) {
    const m = /^policy\.tools\.argRules\[(\d+)\]/.exec(field);
    if (m) out[Number(m[1])] = message;
  }
  return out;
}

export function PolicyArgRules(props: {
  policy: Policy;
  onChange: (policy: Policy) => void;
  errors?: Record<string, string>;
}) {
  const id = useId();
  const tools = props.policy.tools;
  const set = (patch: Partial<Policy['tools']>) =>
    props.onChange({ ...props.policy, tools: { ...tools, ...patch } });
  const mode = tools.credentials ?? 'redact';
  return (
    <>
      <ChipList
        label="Argument rules"
        hint={`Checked before each call reaches the server: TOOL:ARG:RULE, * for any tool, ARG a name or dotted path; RULE is ${RULE_FORMS}.`}
        values={(tools.argRules ?? []).map(argRuleText)}
        check={checkRule}
        onChange={(texts) => set({ argRules: parsedAll(texts, parseArgRuleFlag) })}
        placeholder="read_file:path:within-roots"
        itemErrors={ruleErrors(props.errors ?? {})}
      />
      <ChipList
        label="Allowed calls"
        hint='Calls of a tool that asks before each call that go through without asking ("Always allow these arguments" in the Inbox): TOOL {"ARG": "RULE"}, every argument named, RULE match=, one-of=, max-length= or equals=.'
        values={(tools.allowedCalls ?? []).map(callPatternText)}
        check={checkAllowedCall}
        onChange={(texts) => set({ allowedCalls: parsedAll(texts, parseCallPatternText) })}
        placeholder='write_file {"path": "match=/srv/notes/.*"}'
      />
      <div className="field">
        <label htmlFor={`${id}-credentials`}>Credentials in results and calls</label>
        <select
          id={`${id}-credentials`}
          value={mode}
          onChange={(e) => set({ credentials: e.target.value as CredentialMode })}
          aria-describedby={`${id}-credentials-hint`}
        >
          {modes.map((m) => (
            <option key={m.mode} value={m.mode}>
              {m.label}
            </option>
          ))}
        </select>
        <p id={`${id}-credentials-hint`} className="hint">
          {modes.find((m) => m.mode === mode)?.hint}
        </p>
      </div>
    </>
  );
}
