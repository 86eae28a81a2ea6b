/**
 * How long the audit log keeps its rows: a maximum size and age, saved to config.json and applied
 * at once by the core. An empty field means no limit of that kind.
 */
import { type FormEvent, useEffect, useState } from 'react';
import type { AuditSettings } from '../../../app/audit/audit-settings';
import type { WardenApi } from '../../../app/contract/api';
import { useManagedRetention } from './use-policy-locks';

type RetentionApi = Pick<WardenApi, 'audit.settings' | 'audit.setSettings'>;

const shown = (n: number | null) => (n === null ? '' : String(n));

function parse(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  return /^\d+$/.test(t) && Number(t) >= 1 ? Number(t) : undefined;
}

export function AuditRetention(props: { api: RetentionApi }) {
  const { api } = props;
  const [size, setSize] = useState('');
  const [age, setAge] = useState('');
  const [status, setStatus] = useState('');
  const minimum = useManagedRetention();

  useEffect(() => {
    let live = true;
    api['audit.settings']({}).then(
      (s: AuditSettings) => {
        if (!live) return;
        setSize(shown(s.retention.maxSizeMb));
        setAge(shown(s.retention.maxAgeDays));
      },
      (e: unknown) => live && setStatus(`Could not read retention: ${String(e)}`),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const onSave = async (e: FormEvent) => {
    e.preventDefault();
    const maxSizeMb = parse(size);
    const maxAgeDays = parse(age);
    if (maxSizeMb === undefined || maxAgeDays === undefined) {
      setStatus('Enter whole numbers of 1 or more, or leave a field empty for no limit.');
      return;
    }
    setStatus('Saving…');
    try {
      await api['audit.setSettings']({ retention: { maxSizeMb, maxAgeDays } });
      setStatus('Saved; older rows are removed now.');
    } catch (err) {
      setStatus(`Not saved: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  return (
    <form className="audit-retention" aria-label="Audit retention" onSubmit={(e) => void onSave(e)}>
      <label>
        Keep at most{' '}
        <input
          inputMode="numeric"
          size={6}
          value={size}
          onChange={(e) => setSize(e.target.value)}
          aria-label="Maximum size in MB"
        />{' '}
        MB
      </label>
      <label>
        and{' '}
        <input
          inputMode="numeric"
          size={5}
          value={age}
          onChange={(e) => setAge(e.target.value)}
          aria-label="Maximum age in days"
        />{' '}
        days
      </label>
      {minimum && <span className="locked-note">{minimum}</span>}
      <button type="submit">Save retention</button>
      <span role="status" className="muted">
        {status}
      </span>
    </form>
  );
}
