/**
 * The audit filter bar: server, instance, kind, outcome, time range and free text. Each change
 * reloads the list from the core; the text waits for a pause in typing.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { type AuditOutcome, auditKinds } from '../../../app/audit/audit-event';
import type { AuditFilter } from '../store/audit/audit-filter';
import { auditSelectors } from '../store/audit/audit-selectors';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';

const outcomes: AuditOutcome[] = ['ok', 'refused', 'error', 'info'];

/** `datetime-local` value (local time) to ISO, or undefined. */
function toIso(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

function toLocal(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const times = [
  { key: 'since', label: 'From' },
  { key: 'until', label: 'To' },
] as const;

/** A filter picked from a list, or "any" (no filter). */
function ChoiceFilter<T extends string>(props: {
  id: string;
  label: string;
  className?: string;
  value: T | undefined;
  options: readonly T[];
  onChange: (value: T | undefined) => void;
}) {
  return (
    <div className={props.className ? `field ${props.className}` : 'field'}>
      <label htmlFor={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value ?? ''}
        onChange={(e) => props.onChange((e.target.value || undefined) as T | undefined)}
      >
        <option value="">any</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

export function AuditFilters() {
  const id = useId();
  const filter = useRoot(auditSelectors.filter);
  const setFilter = useRoot((s) => s.setAuditFilter);
  const names = useRoot(useShallow(serversSelectors.names));
  const [text, setText] = useState(filter.text ?? '');
  const [instance, setInstance] = useState(filter.instance ?? '');
  const apply = (patch: Partial<AuditFilter>) => void setFilter({ ...filter, ...patch });
  const choice = (label: string, field: 'server' | 'outcome', options: readonly string[]) => (
    <ChoiceFilter
      id={`${id}-${field}`}
      label={label}
      value={filter[field]}
      options={options}
      onChange={(value) => apply({ [field]: value })}
    />
  );

  useEffect(() => {
    if ((filter.text ?? '') === text && (filter.instance ?? '') === instance) return;
    const t = setTimeout(
      () =>
        void setFilter({
          ...filter,
          text: text || undefined,
          instance: instance.trim() || undefined,
        }),
      250,
    );
    return () => clearTimeout(t);
  }, [text, instance, filter, setFilter]);

  return (
    <form
      className="audit-filters"
      role="search"
      aria-label="Filter the audit log"
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="field">
        <label htmlFor={`${id}-text`}>Search</label>
        <input
          id={`${id}-text`}
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="words, e.g. fetch_url"
        />
      </div>
      {choice('Server', 'server', names)}
      <div className="field f-instance">
        <label htmlFor={`${id}-instance`}>Instance</label>
        <input
          id={`${id}-instance`}
          value={instance}
          onChange={(e) => setInstance(e.target.value)}
          spellCheck={false}
        />
      </div>
      <ChoiceFilter
        id={`${id}-kind`}
        className="f-kind"
        label="Kind"
        value={filter.kinds?.[0]}
        options={auditKinds}
        onChange={(kind) => apply({ kinds: kind ? [kind] : undefined })}
      />
      {choice('Outcome', 'outcome', outcomes)}
      {times.map((t) => (
        <div key={t.key} className="field">
          <label htmlFor={`${id}-${t.key}`}>{t.label}</label>
          <input
            id={`${id}-${t.key}`}
            type="datetime-local"
            step={1}
            value={toLocal(filter[t.key])}
            onChange={(e) => apply({ [t.key]: toIso(e.target.value) })}
          />
        </div>
      ))}
      <div className="field filter-clear">
        <button
          type="button"
          onClick={() => {
            setText('');
            setInstance('');
            void setFilter({});
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
