/**
 * A server's tools as Warden pinned them: name, description, annotations (read-only, destructive,
 * idempotent, open world), whether it is disabled or needs approval and whether the server's
 * whole listings leave it out, each with "Try it".
 */
import { useState } from 'react';
import type { Policy } from '../../../app/policy/policy-schema';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';
import { driftSelectors } from '../store/tools/drift-slice';
import { TryItForm } from './try-it-form';

const hints: Array<[key: string, label: string, tone: string]> = [
  ['readOnlyHint', 'read-only', 'ok'],
  ['destructiveHint', 'destructive', 'error'],
  ['idempotentHint', 'idempotent', 'info'],
  ['openWorldHint', 'open world', 'refused'],
];

export function DetailTools(props: { server: string; tools: Policy['tools'] }) {
  const [open, setOpen] = useState<string | undefined>();
  const listing = useRoot(driftSelectors.listingOf(props.server));
  const defs = Object.values(props.tools.pinned).sort((a, b) => a.name.localeCompare(b.name));
  if (defs.length === 0)
    return (
      <p className="muted">
        No tools known yet: start the server (or connect a client) and Warden lists and pins its
        tools.
      </p>
    );
  return (
    <ul className="tool-list">
      {defs.map((t) => {
        const annotations = (t.annotations ?? {}) as Record<string, unknown>;
        const disabled = props.tools.disabled.includes(t.name);
        return (
          <li key={t.name} className="tool-item" data-tool={t.name}>
            <div className="tool-head">
              <span className="tool-name">{showUntrusted(t.name)}</span>
              {hints
                .filter(([k]) => annotations[k] === true)
                .map(([k, label, tone]) => (
                  <span key={k} className={`tag tag-${tone}`}>
                    {label}
                  </span>
                ))}
              {disabled && <span className="tag tag-error">disabled</span>}
              {props.tools.approval.includes(t.name) && (
                <span className="tag tag-warn">asks before each call</span>
              )}
              {listing?.unlisted.some((u) => u.name === t.name) && (
                <span className="tag tag-warn" title="Left out of the server’s tool listings">
                  not listed
                </span>
              )}
              <button
                type="button"
                className="small"
                aria-expanded={open === t.name}
                disabled={disabled}
                onClick={() => setOpen(open === t.name ? undefined : t.name)}
              >
                Try it<span className="visually-hidden"> {t.name}</span>
              </button>
            </div>
            {t.description && <p className="tool-desc">{showUntrusted(t.description)}</p>}
            {open === t.name && (
              <TryItForm server={props.server} tool={t.name} schema={t.inputSchema} />
            )}
          </li>
        );
      })}
    </ul>
  );
}
