/**
 * How long the audit log keeps its rows: a maximum size and age, saved to config.json and applied
 * at once by the core. An empty field means no limit of that kind. The form edits a draft of the
 * stored limits at one revision: a change made elsewhere (another window, config.json edited by
 * hand) is taken in under the user's edits, and a save from an older copy is refused by the core.
 */
import { type FormEvent, useEffect, useState } from 'react';
import type { AuditSettingsView } from '../../../app/contract/audit-settings';
import type { WardenApi } from '../../../app/contract/api';
import {
  type RetentionDraft,
  type RetentionField,
  createRetentionDraft,
  parseLimit,
  rebaseRetention,
  retentionEdited,
  savedRetention,
} from '../../../app/audit/retention-draft';
import { toContractError } from '../store/servers/servers-slice';
import { DraftConflicts } from './draft-conflicts';
import { useManagedRetention } from './use-policy-locks';

type RetentionApi = Pick<WardenApi, 'audit.settings' | 'audit.setSettings' | 'on'>;

/** What a failed call says to the user: its message and remedy, however the error crossed. */
function failure(error: unknown): string {
  const e = toContractError(error);
  return e.remedy ? `${e.message} ${e.remedy}` : e.message;
}

const amounts = [
  { field: 'size', before: 'Keep at most', after: 'MB', size: 6, label: 'Maximum size in MB' },
  { field: 'age', before: 'and', after: 'days', size: 5, label: 'Maximum age in days' },
] as const;
const nouns: Record<RetentionField, string> = { size: 'Maximum size', age: 'Maximum age' };

/** A conflicting field as the notice names it: its label and the stored value. */
function storedNow(draft: RetentionDraft, field: RetentionField): string {
  const unit = amounts.find((a) => a.field === field)!.after;
  const value = draft.original[field];
  return `${nouns[field]} (stored: ${value === '' ? 'no limit' : `${value} ${unit}`})`;
}

/** One limit as a sentence: "<before> [number] <after>". */
function Amount(props: {
  before: string;
  after: string;
  size: number;
  label: string;
  value: string;
  onChange: (text: string) => void;
}) {
  return (
    <label>
      {props.before}{' '}
      <input
        inputMode="numeric"
        size={props.size}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-label={props.label}
      />{' '}
      {props.after}
    </label>
  );
}

export function AuditRetention(props: { api: RetentionApi }) {
  const { api } = props;
  const [draft, setDraft] = useState<RetentionDraft>();
  const [status, setStatus] = useState('');
  const minimum = useManagedRetention();

  useEffect(() => {
    let live = true;
    // A newer copy (from here, another window or config.json) goes under the user's edits.
    const take = (view: AuditSettingsView) =>
      setDraft((d) =>
        d
          ? rebaseRetention(d, view.retention, view.revision)
          : createRetentionDraft(view.retention, view.revision),
      );
    const off = api.on('audit.settingsChanged', (view) => live && take(view));
    api['audit.settings']({}).then(
      (view) => live && take(view),
      (e: unknown) => live && setStatus(`Could not read retention: ${failure(e)}`),
    );
    return () => {
      live = false;
      off();
    };
  }, [api]);

  const onSave = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const sent = draft;
    const maxSizeMb = parseLimit(sent.edited.size);
    const maxAgeDays = parseLimit(sent.edited.age);
    if (maxSizeMb === undefined || maxAgeDays === undefined) {
      setStatus('Enter whole numbers of 1 or more, or leave a field empty for no limit.');
      return;
    }
    setStatus('Saving…');
    try {
      const view = await api['audit.setSettings']({
        retention: { maxSizeMb, maxAgeDays },
        expectedRevision: sent.base,
      });
      // What was typed while saving stays on top of the saved limits.
      setDraft((d) => savedRetention(d ?? sent, sent, view.retention, view.revision));
      setStatus('Saved; older rows are removed now.');
    } catch (err) {
      setStatus(`Not saved: ${failure(err)}${await takeNewer(err, sent.base)}`);
    }
  };

  /**
   * After a refused save: when the stored limits are newer than the draft's, they are taken in
   * under the edits (the core tells of them too; this makes sure), and the user is told so.
   */
  const takeNewer = async (error: unknown, base: string): Promise<string> => {
    if (toContractError(error).kind !== 'conflict') return '';
    const view = await api['audit.settings']({}).catch(() => undefined);
    if (!view || view.revision === base) return '';
    setDraft((d) => d && rebaseRetention(d, view.retention, view.revision));
    return ' Your edits are kept on the stored limits; check and save again.';
  };

  const discard = () => {
    if (!draft) return;
    setDraft({ ...draft, edited: draft.original, conflicts: [] });
    setStatus('');
  };

  return (
    <form className="audit-retention" aria-label="Audit retention" onSubmit={(e) => void onSave(e)}>
      {draft && <DraftConflicts fields={draft.conflicts.map((f) => storedNow(draft, f))} />}
      {amounts.map((a) => (
        <Amount
          key={a.field}
          {...a}
          value={draft?.edited[a.field] ?? ''}
          onChange={(v) => {
            setDraft((d) => d && { ...d, edited: { ...d.edited, [a.field]: v } });
            // What the last save said is no longer about what the form shows.
            setStatus('');
          }}
        />
      ))}
      {minimum && <span className="locked-note">{minimum}</span>}
      <button type="submit" disabled={!draft}>
        Save retention
      </button>
      {draft && retentionEdited(draft) && (
        <button type="button" onClick={discard}>
          Discard changes
        </button>
      )}
      <span role="status" className="muted">
        {status}
      </span>
    </form>
  );
}
