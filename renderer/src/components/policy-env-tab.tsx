/**
 * Environment: host variables passed through, and variables set for the server, each either a
 * plain value (in the config file) or a secret kept in the core's secret store (the OS keychain
 * in the app, an unencrypted file without it, said as such), set through the core and never
 * sent back.
 */
import { useId, useState } from 'react';
import type { ServerView } from '../../../app/contract/servers';
import type { Policy } from '../../../app/policy/policy-schema';
import { useRoot } from '../store/store-context';
import { ChipList } from './chip-list';
import { checkEnvName, looksSecret } from './policy-checks';
import { PolicyEnvRow } from './policy-env-row';
import { Untrusted } from './untrusted';
import { useSecretPlace } from './use-secret-store';
import { type PolicyTabProps, section } from './policy-tab-props';

export function PolicyEnvTab(
  props: PolicyTabProps & {
    server: string;
    original: Policy;
    /** A secret was saved by the core (a new revision): take its variable into the draft. */
    onSecretSaved: (view: ServerView, variable: string) => void;
  },
) {
  const id = useId();
  const setSecret = useRoot((s) => s.setSecret);
  const place = useSecretPlace();
  const [env, set] = section(props, 'env');
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [asSecret, setAsSecret] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const names = Object.keys(env.set);
  const nameProblem = checkEnvName(name, names);
  const secretChoice = asSecret || looksSecret(name);

  const saveSecret = async (variable: string, v: string): Promise<string | undefined> => {
    const r = await setSecret({ name: props.server, variable, value: v });
    if (!r.ok) return `${r.error.message} ${r.error.remedy ?? ''}`.trim();
    props.onSecretSaved(r.value, variable);
    return undefined;
  };
  const add = async () => {
    const n = name.trim();
    if (n === '' || nameProblem) return;
    if (secretChoice) {
      const failed = await saveSecret(n, value);
      setProblem(failed);
      if (failed) return;
    } else {
      set({ set: { ...env.set, [n]: { kind: 'plain', value } } });
    }
    setName('');
    setValue('');
    setAsSecret(false);
  };
  const replace = (n: string, v: string) => {
    // An emptied hidden field means "keep the stored value", never "set it to nothing".
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
            <PolicyEnvRow
              key={n}
              name={n}
              value={env.set[n]!}
              onReplace={(v) => replace(n, v)}
              onReplaceSecret={(v) => saveSecret(n, v)}
              onRemove={() => set({ set: without(n) })}
              place={place}
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
            type={secretChoice ? 'password' : 'text'}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            spellCheck={false}
            autoComplete="off"
          />
          <label className="choice">
            <input
              type="checkbox"
              checked={secretChoice}
              disabled={looksSecret(name)}
              onChange={(e) => setAsSecret(e.target.checked)}
            />
            Keep as a secret
          </label>
          <button
            type="button"
            onClick={() => void add()}
            disabled={name.trim() === '' || !!nameProblem || (secretChoice && value === '')}
          >
            {secretChoice ? 'Save secret' : 'Add variable'}
          </button>
        </div>
        <p
          className="hint"
          data-secret-place={place ? (place.encrypted ? 'keychain' : 'file') : ''}
        >
          {place?.encrypted === false ? (
            <>
              A secret is saved at once in <Untrusted text={place.store} />: Warden without the app
              has no OS keychain.
            </>
          ) : (
            <>
              A secret is saved at once in the OS keychain
              {place ? '' : ' (or, without the app, in Warden’s secret file)'}.
            </>
          )}{' '}
          It is never shown again, only replaced. Names like *_TOKEN or *_KEY are always secrets.
        </p>
        {(nameProblem ?? problem) && (
          <p className="field-error" aria-live="polite">
            {nameProblem ?? problem}
          </p>
        )}
      </section>
    </div>
  );
}
