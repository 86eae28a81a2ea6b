/**
 * An editable list of short values shown as chips: type and press Enter (or "Add"), remove with
 * the chip's button. The value is checked as it is typed and the problem is shown under the field.
 */
import { type KeyboardEvent, useId, useState } from 'react';

export function ChipList(props: {
  label: string;
  hint?: string;
  values: readonly string[];
  check: (text: string, existing: readonly string[]) => string | undefined;
  normalize?: (text: string) => string;
  onChange: (values: string[]) => void;
  placeholder?: string;
  /** Errors from the core for particular chips, by index. */
  itemErrors?: Record<number, string>;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const problem = props.check(text, props.values);
  const add = () => {
    const t = text.trim();
    if (t === '' || problem) return;
    props.onChange([...props.values, props.normalize ? props.normalize(t) : t]);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      add();
    }
  };
  return (
    <div className="field chip-field">
      <label htmlFor={`${id}-input`}>{props.label}</label>
      {props.hint && (
        <p id={`${id}-hint`} className="hint">
          {props.hint}
        </p>
      )}
      <ul className="chips" aria-label={props.label}>
        {props.values.map((v, i) => (
          <li key={v} className={props.itemErrors?.[i] ? 'chip chip-error' : 'chip'}>
            <span>{v}</span>
            <button
              type="button"
              className="chip-remove"
              aria-label={`Remove ${v} from ${props.label}`}
              onClick={() => props.onChange(props.values.filter((x) => x !== v))}
            >
              ×
            </button>
            {props.itemErrors?.[i] && <span className="field-error">{props.itemErrors[i]}</span>}
          </li>
        ))}
        {props.values.length === 0 && <li className="muted chip-empty">none</li>}
      </ul>
      <div className="inline-add">
        <input
          id={`${id}-input`}
          value={text}
          placeholder={props.placeholder}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          spellCheck={false}
          autoComplete="off"
          aria-invalid={problem ? true : undefined}
          aria-describedby={
            [props.hint && `${id}-hint`, problem && `${id}-error`].filter(Boolean).join(' ') ||
            undefined
          }
        />
        <button type="button" onClick={add} disabled={text.trim() === '' || !!problem}>
          Add<span className="visually-hidden"> to {props.label}</span>
        </button>
      </div>
      {problem && (
        <p id={`${id}-error`} className="field-error" aria-live="polite">
          {problem}
        </p>
      )}
    </div>
  );
}
