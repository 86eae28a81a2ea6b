/**
 * The global part of the config, edited as one draft and saved at once: hidden paths, network
 * deny patterns, the list every destination must lie within (when there is one), default limits,
 * and whether a server may run with isolation off, accept a limit as best-effort, or write a
 * workspace file. The core
 * validates with the guards schema; its field errors show beside the fields they concern. Where
 * the managed layer decides, the control is locked and says which rule decides.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import type { PolicyView } from '../../../app/contract/policy';
import { DEFAULT_LIMITS } from '../../../app/policy/defaults';
import {
  type GuardsField,
  type GuardsForm,
  changedFields,
  createGuardsDraft,
  draftGuards,
  editGuards,
  rebaseGuards,
  savedGuards,
  storedFieldText,
} from '../../../app/policy/guards-draft';
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
import { DraftConflicts } from './draft-conflicts';
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

/** What a conflict names, as the form labels it. */
const FIELD_LABELS: Record<GuardsField, string> = {
  hiddenPaths: 'Hidden paths',
  deny: 'Denied destinations',
  allowOnly: 'Allowed destinations only',
  limits: 'Default limits',
  allowOff: 'isolation off',
  allowBestEffort: 'best-effort limits',
  allowExceptions: 'workspace files',
};

export function ParentPolicyForm(props: { view: PolicyView }) {
  const { view } = props;
  const id = useId();
  const layers = useRoot(parentPolicySelectors.layers);
  const save = useRoot((s) => s.saveParentPolicy);
  const reload = useRoot((s) => s.loadParentPolicy);
  const stored = view.stored ?? undefined;
  const [draft, setDraft] = useState(() => createGuardsDraft(stored, view.revision));
  // A change saved elsewhere (another window, the command line, config.json) is taken in under
  // the edits; a save names the revision it was edited from, so none is written over unseen.
  useEffect(() => setDraft((d) => rebaseGuards(d, stored, view.revision)), [stored, view.revision]);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [status, setStatus] = useState('');
  const [saving, setSaving] = useState(false);
  const form = draft.edited;
  const changed = changedFields(draft);
  const dirty = changed.length > 0;
  const defaultPaths = !draft.stored?.hiddenPaths && !changed.includes('hiddenPaths');
  const edit =
    <K extends GuardsField>(field: K) =>
    (value: GuardsForm[K]) => {
      setDraft((d) => editGuards(d, { [field]: value }));
      setStatus('');
    };
  const setLimits = edit('limits');
  const managedOnly = { global: undefined, managed: layers.managed };
  const offLocked = isolationOffRefusal(managedOnly);
  const bestEffortLocked = bestEffortSwitchRefusal(managedOnly);
  const exceptionsLocked = unprotectRefusal(managedOnly);

  const onSave = async (e: FormEvent) => {
    e.preventDefault();
    const sent = draft;
    setSaving(true);
    setStatus('Saving…');
    const saved = await save(draftGuards(sent), sent.base);
    setSaving(false);
    if (saved.ok) {
      const { stored: now, revision } = saved.value;
      // Edits made while saving stay on top of the saved part.
      setDraft((d) => savedGuards(d, sent, now ?? undefined, revision));
      setFields({});
      setStatus('Saved. Every server uses it from its next start.');
      return;
    }
    const byField = Object.fromEntries((saved.error.fields ?? []).map((f) => [f.field, f.message]));
    setFields(byField);
    const conflict = saved.error.kind === 'conflict';
    // The newer part is taken in under the edits (the core tells of it too; this makes sure).
    if (conflict) void reload();
    setStatus(
      `Not saved: ${saved.error.message}.${conflict ? ' Your edits are kept on the newer version; check them and save again.' : ''}${saved.error.remedy ? ` ${saved.error.remedy}` : ''}`,
    );
  };
  const discard = () => {
    setDraft(createGuardsDraft(stored, view.revision));
    setFields({});
    setStatus('');
  };

  return (
    <form className="policy-section parent-policy-form" noValidate onSubmit={(e) => void onSave(e)}>
      <h3>Guards every server inherits</h3>
      <DraftConflicts
        fields={draft.conflicts.map(
          (c) => `${FIELD_LABELS[c]} (stored: ${storedFieldText(draft, c)})`,
        )}
      />
      <ChipList
        label="Hidden paths"
        hint={`Masked inside any folder a server is given: it sees that they exist, not what they hold. ~/PATH, an absolute path, or a file name such as .env.* matched at any depth.${defaultPaths ? ' These are the defaults.' : ''}`}
        values={form.hiddenPaths}
        check={checkHiddenPath}
        onChange={edit('hiddenPaths')}
        placeholder="~/work/secrets"
        itemErrors={listItemErrors(fields, 'hiddenPaths')}
      />
      <ChipList
        label="Denied destinations"
        hint="Refused for every server, whatever its own rules allow."
        values={form.deny}
        check={checkPattern}
        onChange={edit('deny')}
        placeholder="*.tracker.example"
        itemErrors={listItemErrors(fields, 'network.deny')}
      />
      <div className="field allow-only">
        <SwitchButton
          checked={form.allowOnly !== null}
          label="Limit every server to a list of destinations"
          states={['Limited', 'Not limited']}
          onChange={(on) => edit('allowOnly')(on ? (stored?.network?.allow ?? []) : null)}
        />
        {form.allowOnly && (
          <ChipList
            label="Allowed destinations only"
            hint={`A server may allow only destinations within these.${form.allowOnly.length === 0 ? ' The list is empty: no server may reach any destination.' : ''}`}
            values={form.allowOnly}
            check={checkPattern}
            onChange={edit('allowOnly')}
            placeholder="*.corp.example"
            itemErrors={listItemErrors(fields, 'network.allow')}
          />
        )}
      </div>
      <fieldset className="field default-limits">
        <legend>Default limits</legend>
        <p className="hint">Used by servers that set no limit of their own.</p>
        {limitNames.map((name) => {
          const value = form.limits[name];
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
                  setLimits({ ...form.limits, [name]: raw === '' ? undefined : Number(raw) });
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
        on={form.allowOff}
        locked={offLocked}
        onChange={edit('allowOff')}
      />
      <RuleSwitch
        label="Allow a limit the host cannot enforce to be best-effort"
        on={form.allowBestEffort}
        locked={bestEffortLocked}
        onChange={edit('allowBestEffort')}
      />
      <RuleSwitch
        label="Allow a server to write workspace files (.git, .vscode, …)"
        on={form.allowExceptions}
        locked={exceptionsLocked}
        onChange={edit('allowExceptions')}
      />
      <div className="actions parent-policy-save">
        <button type="submit" className="primary" disabled={saving}>
          Save policy
        </button>
        {dirty && (
          <button type="button" onClick={discard} disabled={saving}>
            Discard changes
          </button>
        )}
        <span role="status" className={status.startsWith('Not saved') ? 'field-error' : 'muted'}>
          {status}
        </span>
      </div>
    </form>
  );
}
