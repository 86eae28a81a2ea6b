/**
 * One labelled text field of a form: an input, or a textarea when it takes several lines, with
 * its hint and its error tied to it for screen readers.
 */
import type { ReactNode, RefObject } from 'react';

export interface TextFieldProps {
  /** The form's id prefix; the field's ids are `${id}-${field}`, `-hint` and `-error`. */
  id: string;
  field: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** A textarea of this many rows; an input without it. */
  rows?: number;
  placeholder?: string;
  hint?: ReactNode;
  error?: string;
  inputRef?: RefObject<HTMLInputElement | null>;
  areaRef?: RefObject<HTMLTextAreaElement | null>;
}

export function TextField(p: TextFieldProps) {
  const base = `${p.id}-${p.field}`;
  const describedBy =
    [p.hint ? `${base}-hint` : undefined, p.error ? `${base}-error` : undefined]
      .filter(Boolean)
      .join(' ') || undefined;
  const common = {
    id: base,
    name: p.field,
    value: p.value,
    spellCheck: false,
    autoComplete: 'off',
    ...(p.placeholder ? { placeholder: p.placeholder } : {}),
    'aria-invalid': p.error ? true : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div className="field">
      <label htmlFor={base}>{p.label}</label>
      {p.rows === undefined ? (
        <input {...common} ref={p.inputRef} onChange={(e) => p.onChange(e.target.value)} />
      ) : (
        <textarea
          {...common}
          ref={p.areaRef}
          rows={p.rows}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
      {p.hint && (
        <p id={`${base}-hint`} className="hint">
          {p.hint}
        </p>
      )}
      {p.error && (
        <p id={`${base}-error`} className="field-error">
          {p.error}
        </p>
      )}
    </div>
  );
}

/** One field of a list: its name, label, value, change handler and its other props. */
export type FieldRow = readonly [
  field: string,
  label: string,
  value: string,
  onChange: (value: string) => void,
  extra: Omit<TextFieldProps, 'id' | 'field' | 'label' | 'value' | 'onChange' | 'error'>,
];

/** Several text fields in a row, each with the error `errorOf` finds for it. */
export function TextFields(p: {
  id: string;
  rows: readonly FieldRow[];
  errorOf: (field: string) => { error?: string };
}) {
  return p.rows.map(([field, label, value, onChange, extra]) => (
    <TextField
      key={field}
      id={p.id}
      {...{ field, label, value, onChange }}
      {...extra}
      {...p.errorOf(field)}
    />
  ));
}
