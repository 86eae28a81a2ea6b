/**
 * The add control at the end of a row's chips: a "+ What" button that opens a field checked as
 * it is typed, its action buttons (Enter runs the first), Cancel, and the problem under the
 * field. An action resolves to true once the value is saved, which closes the field.
 */
import { type ReactNode, useId, useState } from 'react';
import { useHoldRow } from './row-hold';

export interface ChipAction {
  label: string;
  /** Said after the label to assistive technology, e.g. " folder to net". */
  context: string;
  run: (text: string) => Promise<boolean>;
  /** Why this action may not take a value that passes the check (e.g. a managed rule), if so. */
  refuse?: (text: string) => string | undefined;
}

export function ChipAdder(props: {
  /** The button's word, e.g. "Folder" for "+ Folder". */
  what: string;
  server: string;
  fieldLabel: string;
  placeholder: string;
  disabled: boolean;
  check: (text: string) => string | undefined;
  actions: readonly [ChipAction, ...ChipAction[]];
  /** Controls before the actions (e.g. the folder picker), given a way to fill the field. */
  extra?: (fill: (text: string) => void) => ReactNode;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  // In a windowed list, the row stays rendered while the field is open (its text is kept).
  useHoldRow(open);
  const problem = props.check(text);
  const blocked = text.trim() === '' || !!problem;
  const refusal = (action: ChipAction) => (blocked ? undefined : action.refuse?.(text));
  const locked = props.actions.map(refusal).find((why) => why !== undefined);
  const shown = problem ?? (locked && `Locked: ${locked}`);
  const run = async (action: ChipAction) => {
    if (blocked || refusal(action)) return;
    if (await action.run(text)) {
      setText('');
      setOpen(false);
    }
  };

  if (!open) {
    return (
      <button
        type="button"
        className="chip-add-button"
        disabled={props.disabled}
        onClick={() => setOpen(true)}
      >
        + {props.what}
        <span className="visually-hidden"> for {props.server}</span>
      </button>
    );
  }
  return (
    <span className="chip-add">
      <label htmlFor={`${id}-field`} className="visually-hidden">
        {props.fieldLabel}
      </label>
      <input
        id={`${id}-field`}
        className="chip-input"
        value={text}
        autoFocus
        placeholder={props.placeholder}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={shown ? true : undefined}
        aria-describedby={shown ? `${id}-error` : undefined}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void run(props.actions[0]);
          }
          if (e.key === 'Escape') setOpen(false);
        }}
      />
      {props.extra?.(setText)}
      {props.actions.map((action) => (
        <button
          key={action.label}
          type="button"
          className="small"
          disabled={blocked || !!refusal(action)}
          onClick={() => void run(action)}
        >
          {action.label}
          <span className="visually-hidden">{action.context}</span>
        </button>
      ))}
      <button type="button" className="small link" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {shown && (
        <span id={`${id}-error`} className="field-error chip-error-text">
          {shown}
        </span>
      )}
    </span>
  );
}
