/**
 * A tool whose definition changed since it was pinned, side by side: the pinned definition and the
 * one the server now reports, field by field, with the differing fields marked. Accept pins the
 * new definition; keep blocked leaves the tool hidden from clients. The server's text is shown
 * with its control, bidi and invisible characters escaped: a zero-width or reordered word must not
 * make a changed description read as the pinned one. A server that changes the tool again while
 * the review is open is said to have, above the definition now shown; Accept pins what is shown.
 */
import { useId, useRef } from 'react';
import { canonicalJson } from '../../../app/audit/canonical-json';
import type { ToolDrift } from '../../../app/contract/tools';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';
import { DecisionActions } from './decision-actions';

const fieldNames = ['description', 'inputSchema', 'annotations'] as const;

/** A field as the server wrote it, its control and bidi characters escaped (lines kept). */
function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return showUntrusted(text, { multiline: true });
}

export function DriftDiff(props: { drift: ToolDrift }) {
  const { drift } = props;
  const decide = useRoot((s) => s.decideDrift);
  const id = useId();
  const tool = showUntrusted(drift.tool);
  // What the server reported when this review opened: a change after it is said, before Accept.
  const opened = useRef(canonicalJson(drift.current));
  const changedAgain = opened.current !== canonicalJson(drift.current);
  return (
    <section className="drift" aria-labelledby={`${id}-h`} data-drift={drift.tool}>
      <h4 id={`${id}-h`}>{tool} changed since it was pinned; hidden until you decide</h4>
      {changedAgain && (
        <p className="notice notice-warn" role="alert" data-changed-again>
          The server changed this tool again while this review was open: what it reports now is
          shown below. Read it again before you accept.
        </p>
      )}
      <p className="hint">
        Changed: {drift.fields.join(', ')}; seen {new Date(drift.seenAt).toLocaleString()}
      </p>
      <table className="diff">
        <caption className="visually-hidden">Pinned and current definition of {tool}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Pinned</th>
            <th scope="col">Now reported</th>
          </tr>
        </thead>
        <tbody>
          {fieldNames.map((f) => {
            const changed = drift.fields.includes(f);
            return (
              <tr key={f} className={changed ? 'diff-changed' : undefined}>
                <th scope="row">
                  {f}
                  {changed && <span className="tag tag-warn">changed</span>}
                </th>
                <td>
                  <pre className="diff-old">{show(drift.pinned[f])}</pre>
                </td>
                <td>
                  <pre className="diff-new">{show(drift.current[f])}</pre>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <DecisionActions
        buttons={[
          { decision: 'accept', label: 'Accept new definition', context: <> of {tool}</> },
          {
            decision: 'keep-blocked',
            label: 'Keep blocked',
            className: 'primary',
            context: <> {tool}</>,
          },
        ]}
        decide={async (d) => {
          const r = await decide(drift, d);
          return r.ok ? undefined : r.error.message;
        }}
      />
    </section>
  );
}
