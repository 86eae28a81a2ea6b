/**
 * Environment: host variables passed through, and variables set for the server. A value that is a
 * secret (kept in the keychain, or named like one) is never shown back: it can only be replaced.
 */
import { useId, useState } from 'react';
import type { EnvValue, Policy } from '../../../app/policy/policy-schema';
import { ChipList } from './chip-list';
import { checkEnvName, looksSecret } from './policy-checks';

function SetRow(props: {
  name: string;
  value: EnvValue;
  onReplace: (value: string) => void;
  onRemove: () => void;
  error?: string;
}) {
  const id = useId();
  const hidden = props.value.kind === 'secret' || looksSecret(props.name);
  const [replacing, setReplacing] = useState('');
  return (
    <li className="env-row" data-env={props.name}>
      <code>{props.name}</code>
      {props.value.kind === 'secret' ? (
        <span className="muted">secret in the keychain; value hidden</span>
      ) : (
        <>
          <label htmlFor={`${id}-v`} className="visually-hidden">
            {hidden ? `New value for ${props.name}` : `Value of ${props.name}`}
          </label>
          <input
            id={`${id}-v`}
            type={hidden ? 'password' : 'text'}
            value={hidden ? replacing : props.value.value}
            placeholder={hidden ? 'hidden; type to replace' : undefined}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => {
              if (hidden) setReplacing(e.target.value);
              props.onReplace(e.target.value);
            }}
          />
        </>
      )}
      <button type="button" onClick={props.onRemove} aria-label={`Remove variable ${props.name}`}>
        Remove
      </button>
      {props.error && <p className="field-error">{props.error}</p>}
    </li>
  );
}

export function PolicyEnvTab(props: {
  policy: Policy;
  original: Policy;
  onChange: (policy: Policy) => void;
  errors: Record<string, string>;
}) {
  const id = useId();
  const env = props.policy.env;
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const set = (patch: Partial<Policy['env']>) =>
    props.onChange({ ...props.policy, env: { ...env, ...patch } });
  const names = Object.keys(env.set);
  const nameProblem = checkEnvName(name, names);
  const add = () => {
    if (name.trim() === '' || nameProblem) return;
    set({ set: { ...env.set, [name.trim()]: { kind: 'plain', value } } });
    setName('');
    setValue('');
  };
  const replace = (n: string, v: string) => {
    // An emptied secret field means "keep the stored value", never "set it to nothing".
    const before = props.original.env.set[n];
    const keep = looksSecret(n) && v === '' && before !== undefined;
    set({ set: { ...env.set, [n]: keep ? before : { kind: 'plain', value: v } } });
  };
  const without = (n: string) =>
    Object.fromEntries(Object.entries(env.set).filter(([k]) => k !== n));
  return (
    <div className="tab-body">
      <ChipList
        label="Variables passed from your environment"
        hint="On top of a minimal base (PATH, LANG, TERM, …). Values whose names look secret are redacted in the log."
        values={env.pass}
        check={checkEnvName}
        onChange={(pass) => set({ pass })}
        placeholder="GITHUB_TOKEN"
      />
      <section aria-labelledby={`${id}-set`}>
        <h3 id={`${id}-set`}>Variables set for the server</h3>
        <ul className="env-set" aria-label="Variables set for the server">
          {names.map((n) => (
            <SetRow
              key={n}
              name={n}
              value={env.set[n]!}
              onReplace={(v) => replace(n, v)}
              onRemove={() => set({ set: without(n) })}
              error={props.errors[`policy.env.set.${n}`]}
            />
          ))}
          {names.length === 0 && <li className="muted">none</li>}
        </ul>
        <div className="inline-add">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            value={name}
            onChange={(e) => setName(e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={nameProblem ? true : undefined}
          />
          <label htmlFor={`${id}-value`}>Value</label>
          <input
            id={`${id}-value`}
            type={looksSecret(name) ? 'password' : 'text'}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            spellCheck={false}
            autoComplete="off"
          />
          <button type="button" onClick={add} disabled={name.trim() === '' || !!nameProblem}>
            Add variable
          </button>
        </div>
        {nameProblem && (
          <p className="field-error" aria-live="polite">
            {nameProblem}
          </p>
        )}
      </section>
    </div>
  );
}
