/**
 * The audit filter bar: server, instance, kind, outcome, time range and free text. Each change
 * reloads the list from the core; the text waits for a pause in typing.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { type AuditKind, type AuditOutcome, auditKinds } from '../../../app/audit/audit-event';
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

export function AuditFilters() {
  const id = useId();
  const filter = useRoot(auditSelectors.filter);
  const setFilter = useRoot((s) => s.setAuditFilter);
  const names = useRoot(useShallow(serversSelectors.names));
  const [text, setText] = useState(filter.text ?? '');
  const [instance, setInstance] = useState(filter.instance ?? '');
  const apply = (patch: Partial<AuditFilter>) => void setFilter({ ...filter, ...patch });

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
      <div className="field">
        <label htmlFor={`${id}-server`}>Server</label>
        <select
          id={`${id}-server`}
          value={filter.server ?? ''}
          onChange={(e) => apply({ server: e.target.value || undefined })}
        >
          <option value="">any</option>
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div className="field f-instance">
        <label htmlFor={`${id}-instance`}>Instance</label>
        <input
          id={`${id}-instance`}
          value={instance}
          onChange={(e) => setInstance(e.target.value)}
          spellCheck={false}
        />
      </div>
      <div className="field f-kind">
        <label htmlFor={`${id}-kind`}>Kind</label>
        <select
          id={`${id}-kind`}
          value={filter.kinds?.[0] ?? ''}
          onChange={(e) =>
            apply({ kinds: e.target.value ? [e.target.value as AuditKind] : undefined })
          }
        >
          <option value="">any</option>
          {auditKinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-outcome`}>Outcome</label>
        <select
          id={`${id}-outcome`}
          value={filter.outcome ?? ''}
          onChange={(e) =>
            apply({ outcome: (e.target.value || undefined) as AuditOutcome | undefined })
          }
        >
          <option value="">any</option>
          {outcomes.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-since`}>From</label>
        <input
          id={`${id}-since`}
          type="datetime-local"
          step={1}
          value={toLocal(filter.since)}
          onChange={(e) => apply({ since: toIso(e.target.value) })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-until`}>To</label>
        <input
          id={`${id}-until`}
          type="datetime-local"
          step={1}
          value={toLocal(filter.until)}
          onChange={(e) => apply({ until: toIso(e.target.value) })}
        />
      </div>
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
