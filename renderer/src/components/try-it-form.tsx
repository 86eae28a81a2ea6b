/**
 * "Try it": a form built from a tool's input schema (text, number, true/false and choice fields;
 * anything else as JSON), which calls the tool through the gateway and shows the answer. The call
 * runs in a new instance under the client name "Warden Try it" and is audited like any other.
 */
import { type FormEvent, useId, useState } from 'react';
import type { ToolCallResult } from '../../../app/contract/server-detail';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useWardenApi } from '../store/store-context';
import { callErrorText } from './import-screen';

interface Field {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';
  required: boolean;
  description?: string;
  options?: string[];
}

/** The form's fields from a JSON Schema object (untrusted: only plain shapes are read). */
export function schemaFields(schema: unknown): Field[] {
  const s = schema as { properties?: unknown; required?: unknown } | undefined;
  const props = s?.properties;
  if (typeof props !== 'object' || props === null) return [];
  const required = Array.isArray(s?.required) ? (s.required as unknown[]) : [];
  return Object.entries(props as Record<string, unknown>)
    .slice(0, 50)
    .map(([name, raw]) => {
      const p = (raw ?? {}) as { type?: unknown; enum?: unknown; description?: unknown };
      const options = Array.isArray(p.enum) ? p.enum.filter((v) => typeof v === 'string') : [];
      const type: Field['type'] =
        options.length > 0
          ? 'enum'
          : p.type === 'string' ||
              p.type === 'number' ||
              p.type === 'integer' ||
              p.type === 'boolean'
            ? p.type
            : 'json';
      return {
        name,
        type,
        required: required.includes(name),
        ...(typeof p.description === 'string' ? { description: p.description } : {}),
        ...(options.length > 0 ? { options: options } : {}),
      };
    });
}

/** The arguments object from the form's text values; a problem message for a bad value. */
function toArguments(
  fields: Field[],
  values: Record<string, string>,
): { args: Record<string, unknown> } | { problem: string } {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name] ?? '';
    if (v === '' && f.type !== 'boolean') {
      if (f.required) return { problem: `${f.name} is required` };
      continue;
    }
    if (f.type === 'number' || f.type === 'integer') {
      const n = Number(v);
      if (!Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n)))
        return {
          problem: `${f.name} must be ${f.type === 'integer' ? 'a whole number' : 'a number'}`,
        };
      args[f.name] = n;
    } else if (f.type === 'boolean') {
      if (v !== '') args[f.name] = v === 'true';
    } else if (f.type === 'json') {
      try {
        args[f.name] = JSON.parse(v) as unknown;
      } catch {
        return { problem: `${f.name} must be JSON` };
      }
    } else args[f.name] = v;
  }
  return { args };
}

export function TryItForm(props: { server: string; tool: string; schema: unknown }) {
  const api = useWardenApi();
  const id = useId();
  const fields = schemaFields(props.schema);
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ToolCallResult | undefined>();
  const [error, setError] = useState<string | undefined>();
  const built = toArguments(fields, values);
  const problem = 'problem' in built ? built.problem : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if ('problem' in built) return;
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    api['tools.call']({ server: props.server, tool: props.tool, arguments: built.args })
      .then(setResult, (err: unknown) => setError(callErrorText(err)))
      .finally(() => setBusy(false));
  };
  const set = (name: string, v: string) => setValues((all) => ({ ...all, [name]: v }));

  return (
    <form className="try-it" onSubmit={submit} aria-label={`Try ${props.tool}`}>
      {fields.length === 0 && <p className="hint">This tool takes no arguments.</p>}
      {fields.map((f) => (
        <div key={f.name} className="try-field">
          <label htmlFor={`${id}-${f.name}`}>
            {showUntrusted(f.name)}
            {f.required && <span aria-hidden="true"> *</span>}
          </label>
          {f.type === 'boolean' ? (
            <select
              id={`${id}-${f.name}`}
              value={values[f.name] ?? ''}
              onChange={(e) => set(f.name, e.target.value)}
            >
              <option value="">(not set)</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : f.type === 'enum' ? (
            <select
              id={`${id}-${f.name}`}
              value={values[f.name] ?? ''}
              onChange={(e) => set(f.name, e.target.value)}
            >
              <option value="">(not set)</option>
              {f.options?.map((o) => (
                <option key={o} value={o}>
                  {showUntrusted(o)}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={`${id}-${f.name}`}
              value={values[f.name] ?? ''}
              inputMode={f.type === 'number' || f.type === 'integer' ? 'decimal' : undefined}
              placeholder={f.type === 'json' ? 'JSON, e.g. {"a": 1}' : f.type}
              spellCheck={false}
              required={f.required}
              onChange={(e) => set(f.name, e.target.value)}
            />
          )}
          {f.description && <span className="hint">{showUntrusted(f.description)}</span>}
        </div>
      ))}
      <div className="actions">
        <button type="submit" className="primary small" disabled={busy || !!problem}>
          {busy ? 'Calling…' : 'Call'}
          <span className="visually-hidden"> {props.tool}</span>
        </button>
        {problem && Object.keys(values).length > 0 && (
          <span className="field-error">{problem}</span>
        )}
      </div>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <div className={`try-result ${result.isError ? 'is-error' : ''}`} data-try-result>
          <span className={`outcome outcome-pill-${result.isError ? 'error' : 'ok'}`}>
            {result.isError ? 'error' : 'ok'}
          </span>
          <pre>{showUntrusted(result.text, { multiline: true }) || '(no text content)'}</pre>
        </div>
      )}
    </form>
  );
}
