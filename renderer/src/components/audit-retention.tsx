/**
 * How long the audit log keeps its rows: a maximum size and age, saved to config.json and applied
 * at once by the core. An empty field means no limit of that kind.
 */
import { type FormEvent, useEffect, useState } from 'react';
import type { AuditSettings } from '../../../app/audit/audit-settings';
import type { WardenApi } from '../../../app/contract/api';
import { toContractError } from '../store/servers/servers-slice';
import { useManagedRetention } from './use-policy-locks';

type RetentionApi = Pick<WardenApi, 'audit.settings' | 'audit.setSettings'>;

const shown = (n: number | null) => (n === null ? '' : String(n));

/** What a failed call says to the user: its message and remedy, however the error crossed. */
function failure(error: unknown): string {
  const e = toContractError(error);
  return e.remedy ? `${e.message} ${e.remedy}` : e.message;
}

function parse(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  return /^\d+$/.test(t) && Number(t) >= 1 ? Number(t) : undefined;
}

const amounts = [
  { field: 'size', before: 'Keep at most', after: 'MB', size: 6, label: 'Maximum size in MB' },
  { field: 'age', before: 'and', after: 'days', size: 5, label: 'Maximum age in days' },
] as const;

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
  const [text, setText] = useState({ size: '', age: '' });
  const [status, setStatus] = useState('');
  const minimum = useManagedRetention();

  useEffect(() => {
    let live = true;
    api['audit.settings']({}).then(
      (s: AuditSettings) => {
        if (!live) return;
        setText({ size: shown(s.retention.maxSizeMb), age: shown(s.retention.maxAgeDays) });
      },
      (e: unknown) => live && setStatus(`Could not read retention: ${failure(e)}`),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const onSave = async (e: FormEvent) => {
    e.preventDefault();
    const maxSizeMb = parse(text.size);
    const maxAgeDays = parse(text.age);
    if (maxSizeMb === undefined || maxAgeDays === undefined) {
      setStatus('Enter whole numbers of 1 or more, or leave a field empty for no limit.');
      return;
    }
    setStatus('Saving…');
    try {
      await api['audit.setSettings']({ retention: { maxSizeMb, maxAgeDays } });
      setStatus('Saved; older rows are removed now.');
    } catch (err) {
      setStatus(`Not saved: ${failure(err)}`);
    }
  };

  return (
    <form className="audit-retention" aria-label="Audit retention" onSubmit={(e) => void onSave(e)}>
      {amounts.map((a) => (
        <Amount
          key={a.field}
          {...a}
          value={text[a.field]}
          onChange={(v) => setText((t) => ({ ...t, [a.field]: v }))}
        />
      ))}
      {minimum && <span className="locked-note">{minimum}</span>}
      <button type="submit">Save retention</button>
      <span role="status" className="muted">
        {status}
      </span>
    </form>
  );
}
