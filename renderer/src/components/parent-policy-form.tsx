/**
 * The global part of the config, edited as one draft and saved at once: hidden paths, network
 * deny patterns, the list every destination must lie within (when there is one), default limits,
 * and whether a server may run with isolation off, accept a limit as best-effort, or write a
 * workspace file. The core
 * validates with the guards schema; its field errors show beside the fields they concern. Where
 * the managed layer decides, the control is locked and says which rule decides.
 */
import { type FormEvent, useId, useState } from 'react';
import type { PolicyView } from '../../../app/contract/policy';
import { DEFAULT_LIMITS } from '../../../app/policy/defaults';
import type { GuardLimits, Guards } from '../../../app/policy/guards';
import {
  type ManagedRefusal,
  bestEffortSwitchRefusal,
  isolationOffRefusal,
  limitRefusal,
  refusalText,
  unprotectRefusal,
} from '../../../app/policy/managed-rules';
import { type LimitName, limitNames } from '../../../app/policy/policy-schema';
import { parentPolicySelectors } from '../store/policy/policy-slice';
import { useRoot } from '../store/store-context';
import { ChipList } from './chip-list';
import { limitLabels } from './limit-labels';
import { checkHiddenPath, checkPattern, listItemErrors } from './policy-checks';
import { SwitchButton } from './switch-button';

/** What applies when the field is empty: the built-in limit, capped by the managed maximum. */
function builtIn(name: LimitName, max: number | undefined): string {
  const own = DEFAULT_LIMITS[name];
  if (max !== undefined && (own === undefined || own > max)) return `${max} (managed)`;
  return own === undefined ? 'no limit' : `${own} (built-in)`;
}

/** A switch of the global part: off and locked, naming the rule, where the managed layer forbids. */
function RuleSwitch(props: {
  label: string;
  on: boolean;
  locked: ManagedRefusal | undefined;
  onChange: (on: boolean) => void;
}) {
  const { locked } = props;
  return (
    <div className="field">
      <SwitchButton
        checked={locked ? false : props.on}
        label={props.label}
        states={['Allowed', 'Not allowed']}
        locked={locked && refusalText(locked)}
        onChange={props.onChange}
      />
    </div>
  );
}

export function ParentPolicyForm(props: { view: PolicyView }) {
  const { view } = props;
  const id = useId();
  const layers = useRoot(parentPolicySelectors.layers);
  const save = useRoot((s) => s.saveParentPolicy);
  const [hidden, setHidden] = useState(view.applied.hiddenPaths ?? []);
  const [deny, setDeny] = useState(view.applied.network?.deny ?? []);
  const [limits, setLimits] = useState<GuardLimits>(view.applied.limits ?? {});
  const [allowOnly, setAllowOnly] = useState(view.applied.network?.allow);
  const [allowOff, setAllowOff] = useState(view.applied.isolation?.allowOff !== false);
  const [bestEffort, setBestEffort] = useState(view.applied.isolation?.allowBestEffort !== false);
  const [exceptions, setExceptions] = useState(view.applied.workspace?.allowExceptions !== false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [status, setStatus] = useState('');
  const managedOnly = { global: undefined, managed: layers.managed };
  const offLocked = isolationOffRefusal(managedOnly);
  const bestEffortLocked = bestEffortSwitchRefusal(managedOnly);
  const exceptionsLocked = unprotectRefusal(managedOnly);

  const onSave = async (e: FormEvent) => {
    e.preventDefault();
    const { allow: _dropped, ...network } = view.stored?.network ?? {};
    const next: Guards = {
      ...view.stored,
      hiddenPaths: hidden,
      network: { ...network, deny, ...(allowOnly ? { allow: allowOnly } : {}) },
      limits,
      isolation: { ...view.stored?.isolation, allowOff, allowBestEffort: bestEffort },
      workspace: { ...view.stored?.workspace, allowExceptions: exceptions },
    };
    setStatus('Saving…');
    const saved = await save(next);
    if (saved.ok) {
      setFields({});
      setStatus('Saved. Every server uses it from its next start.');
      return;
    }
    const byField = Object.fromEntries((saved.error.fields ?? []).map((f) => [f.field, f.message]));
    setFields(byField);
    setStatus(
      `Not saved: ${saved.error.message}${saved.error.remedy ? ` ${saved.error.remedy}` : ''}`,
    );
  };

  return (
    <form className="policy-section parent-policy-form" noValidate onSubmit={(e) => void onSave(e)}>
      <h3>Guards every server inherits</h3>
      <ChipList
        label="Hidden paths"
        hint={`Masked inside any folder a server is given: it sees that they exist, not what they hold. ~/PATH, an absolute path, or a file name such as .env.* matched at any depth.${view.stored?.hiddenPaths ? '' : ' These are the defaults.'}`}
        values={hidden}
        check={checkHiddenPath}
        onChange={setHidden}
        placeholder="~/work/secrets"
        itemErrors={listItemErrors(fields, 'hiddenPaths')}
      />
      <ChipList
        label="Denied destinations"
        hint="Refused for every server, whatever its own rules allow."
        values={deny}
        check={checkPattern}
        onChange={setDeny}
        placeholder="*.tracker.example"
        itemErrors={listItemErrors(fields, 'network.deny')}
      />
      <div className="field allow-only">
        <SwitchButton
          checked={allowOnly !== undefined}
          label="Limit every server to a list of destinations"
          states={['Limited', 'Not limited']}
          onChange={(on) => setAllowOnly(on ? (view.stored?.network?.allow ?? []) : undefined)}
        />
        {allowOnly && (
          <ChipList
            label="Allowed destinations only"
            hint={`A server may allow only destinations within these.${allowOnly.length === 0 ? ' The list is empty: no server may reach any destination.' : ''}`}
            values={allowOnly}
            check={checkPattern}
            onChange={setAllowOnly}
            placeholder="*.corp.example"
            itemErrors={listItemErrors(fields, 'network.allow')}
          />
        )}
      </div>
      <fieldset className="field default-limits">
        <legend>Default limits</legend>
        <p className="hint">Used by servers that set no limit of their own.</p>
        {limitNames.map((name) => {
          const value = limits[name];
          const over = limitRefusal(name, value, { global: undefined, managed: layers.managed });
          const max = layers.managed?.limits?.[name];
          const error = fields[`limits.${name}`] ?? (over && refusalText(over));
          return (
            <div key={name} className="limit-field" data-limit={name}>
              <label htmlFor={`${id}-${name}`}>{limitLabels[name]}</label>
              <input
                id={`${id}-${name}`}
                type="number"
                min={1}
                value={value ?? ''}
                placeholder={builtIn(name, max)}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${id}-${name}-error` : undefined}
                onChange={(e) => {
                  const raw = e.target.value;
                  setLimits({ ...limits, [name]: raw === '' ? undefined : Number(raw) });
                }}
              />
              {max !== undefined && <span className="locked-note">managed maximum {max}</span>}
              {error && (
                <p id={`${id}-${name}-error`} className="field-error">
                  {error}
                </p>
              )}
            </div>
          );
        })}
      </fieldset>
      <RuleSwitch
        label="Allow servers to run with isolation off"
        on={allowOff}
        locked={offLocked}
        onChange={setAllowOff}
      />
      <RuleSwitch
        label="Allow a limit the host cannot enforce to be best-effort"
        on={bestEffort}
        locked={bestEffortLocked}
        onChange={setBestEffort}
      />
      <RuleSwitch
        label="Allow a server to write workspace files (.git, .vscode, …)"
        on={exceptions}
        locked={exceptionsLocked}
        onChange={setExceptions}
      />
      <div className="actions parent-policy-save">
        <button type="submit" className="primary">
          Save policy
        </button>
        <span role="status" className={status.startsWith('Not saved') ? 'field-error' : 'muted'}>
          {status}
        </span>
      </div>
    </form>
  );
}
