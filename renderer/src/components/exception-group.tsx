/**
 * One list of a server's exceptions to the inherited guards, edited in its policy: each exception
 * in red with what it gives away and a button that takes it back, then a choice from a fixed list
 * and a button that adds it. A choice a guard layer forbids keeps the button disabled and says
 * why under the choice; a group a layer locks whole says why under its title, and offers no choice.
 */
import { type ReactNode, useId, useRef, useState } from 'react';
import { showUntrusted } from '../../../app/text/untrusted-text';

/** One exception as listed: its value, a sentence of what it gives away, a problem, if any. */
export interface ExceptionItem {
  value: string;
  text: ReactNode;
  problem?: string;
}

/** A value in the path style of guard-exceptions.tsx, escaped: a policy is untrusted text. */
export function ExceptionPath(props: { value: string }) {
  return <span className="exception-path">{showUntrusted(props.value)}</span>;
}

export function ExceptionGroup(props: {
  /** `unprotect` or `unhide`: the guards list, for `data-exceptions-of`. */
  list: string;
  title: string;
  hint?: ReactNode;
  /** Why no exception of this list may be added (a guard layer's rule), if so. */
  lockedAll?: string;
  items: readonly ExceptionItem[];
  empty: string;
  /** The label of the choice, e.g. "Workspace file". */
  choiceLabel: string;
  placeholder: string;
  choices: readonly { value: string; label: string }[];
  addLabel: string;
  /** Why `value` may not be chosen (a guard layer's rule), if so. */
  refuse: (value: string) => string | undefined;
  onAdd: (value: string) => void;
  onRemove: (value: string) => void;
}) {
  const id = useId();
  const [choice, setChoice] = useState('');
  // A choice that was added meanwhile (or left the list) is no choice any more.
  const chosen = props.choices.some((c) => c.value === choice) ? choice : '';
  const locked = chosen === '' ? undefined : props.refuse(chosen);
  // The button pressed is disabled or gone after an add or a removal: focus goes to the choice.
  const select = useRef<HTMLSelectElement>(null);
  const add = () => {
    if (chosen === '' || locked) return;
    props.onAdd(chosen);
    setChoice('');
    select.current?.focus();
  };
  const remove = (value: string) => {
    props.onRemove(value);
    select.current?.focus();
  };
  return (
    <div className="exception-group" data-exceptions-of={props.list}>
      <h4 id={`${id}-title`}>{props.title}</h4>
      {props.lockedAll ? (
        <p className="hint" data-locked-all>
          Locked: {props.lockedAll}.
        </p>
      ) : (
        props.hint && <p className="hint">{props.hint}</p>
      )}
      <ul className="exception-items" aria-labelledby={`${id}-title`}>
        {props.items.map((item) => (
          <li key={item.value} className="guard-exception exception-item" data-item={item.value}>
            <span className="exception-warning">{item.text}</span>
            <button type="button" className="small" onClick={() => remove(item.value)}>
              Remove exception <span className="visually-hidden">{showUntrusted(item.value)}</span>
            </button>
            {item.problem && <p className="field-error exception-problem">{item.problem}</p>}
          </li>
        ))}
        {props.items.length === 0 && <li className="muted">{props.empty}</li>}
      </ul>
      {!props.lockedAll && (
        <div className="inline-add exception-add">
          <label htmlFor={`${id}-choice`}>{props.choiceLabel}</label>
          <select
            id={`${id}-choice`}
            ref={select}
            value={chosen}
            onChange={(e) => setChoice(e.target.value)}
            aria-invalid={locked ? true : undefined}
            aria-describedby={locked ? `${id}-locked` : undefined}
          >
            <option value="">{props.placeholder}</option>
            {props.choices.map((c) => (
              <option key={c.value} value={c.value}>
                {showUntrusted(c.label)}
              </option>
            ))}
          </select>
          <button type="button" disabled={chosen === '' || !!locked} onClick={add}>
            {props.addLabel}
          </button>
        </div>
      )}
      {locked && (
        <p id={`${id}-locked`} className="field-error" aria-live="polite" data-locked>
          Locked: {locked}
        </p>
      )}
    </div>
  );
}
