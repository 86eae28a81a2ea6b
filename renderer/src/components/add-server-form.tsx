/**
 * "Add server": name, command, arguments (one per line), read-only folders (one per line; a
 * script given to an interpreter must lie in one of them) and isolation; or, in URL mode, a
 * remote server's URL, transport and headers. The core validates and persists; its field errors
 * are shown beside the field they concern.
 */
import { type FormEvent, useId, useRef, useState } from 'react';
import type { ContractError } from '../../../app/contract/contract-error';
import { defaultPolicy } from '../../../app/policy/defaults';
import { remotePolicy } from '../../../app/policy/remote-policy';
import { AddRemoteFields } from './add-remote-fields';
import { TextFields } from './text-field';
import { useRoot } from '../store/store-context';
import { type Field, argsFromText, formFieldOf, headersFromText } from './add-server-fields';
import { usePolicyLocks } from './use-policy-locks';
import { showUntrusted } from '../../../app/text/untrusted-text';

const MODES = [
  ['command', 'A local program, started in its sandbox'],
  ['url', 'A remote server, reached over HTTP'],
] as const;
const ARGS_HINT =
  'One argument per line, exactly as the program should receive it (no shell quoting).';
const FOLDERS_HINT =
  "One absolute path per line that the server may read, such as its own script's folder. Nothing else of your files is visible to it; change access later in its row.";

export function AddServerForm() {
  const addServer = useRoot((s) => s.addServer);
  const id = useId();
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [folders, setFolders] = useState('');
  const [isolation, setIsolation] = useState<'sandbox' | 'off'>('sandbox');
  const [mode, setMode] = useState<'command' | 'url'>('command');
  const [url, setUrl] = useState('');
  const [transport, setTransport] = useState<'streamable-http' | 'sse'>('streamable-http');
  const [headers, setHeaders] = useState('');
  const offLocked = usePolicyLocks().isolationOff();
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const refs = {
    name: useRef<HTMLInputElement>(null),
    command: useRef<HTMLInputElement>(null),
    args: useRef<HTMLTextAreaElement>(null),
    folders: useRef<HTMLTextAreaElement>(null),
    isolation: useRef<HTMLInputElement>(null),
    url: useRef<HTMLInputElement>(null),
    headers: useRef<HTMLTextAreaElement>(null),
  };

  const showError = (error: ContractError) => {
    const byField: Partial<Record<Field, string>> = {};
    const rest: string[] = [];
    for (const f of error.fields ?? []) {
      const field = formFieldOf(f.field);
      if (field) byField[field] ??= f.message;
      else rest.push(`${f.field}: ${f.message}`);
    }
    setErrors(byField);
    const general =
      error.fields === undefined || error.fields.length === 0 ? error.message : rest.join('; ');
    setFormError(general ? `${general}${error.remedy ? ` ${error.remedy}` : ''}` : undefined);
    const first = (
      ['name', 'command', 'args', 'folders', 'isolation', 'url', 'headers'] as const
    ).find((f) => byField[f]);
    if (first) refs[first].current?.focus();
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setStatus('');
    const roots = argsFromText(folders).map((path) => ({
      path: path.trim(),
      access: 'read' as const,
    }));
    const policy = { ...defaultPolicy(), isolation, filesystem: { roots } };
    const result = await addServer(
      mode === 'url'
        ? {
            name: name.trim(),
            remote: { url: url.trim(), transport, headers: headersFromText(headers) },
            policy: remotePolicy(defaultPolicy(), url.trim()),
          }
        : {
            name: name.trim(),
            launch: { command: command.trim(), args: argsFromText(args) },
            policy,
          },
    );
    setBusy(false);
    if (!result.ok) {
      showError(result.error);
      return;
    }
    setErrors({});
    setFormError(undefined);
    setName('');
    setCommand('');
    setArgs('');
    setFolders('');
    setIsolation('sandbox');
    setUrl('');
    setHeaders('');
    setStatus(
      `Added "${result.value.server.name}". Check its ${mode === 'url' ? 'URL' : 'command'} in the list before it first starts.`,
    );
  };

  const FOLDERS = { rows: 2, hint: FOLDERS_HINT, areaRef: refs.folders };
  const errorOf = (field: string) => {
    const error = errors[field as Field];
    return error ? { error } : {};
  };
  const describedBy = (field: Field, hint?: string) =>
    [hint, errors[field] ? `${id}-${field}-error` : undefined].filter(Boolean).join(' ') ||
    undefined;
  const fieldError = (field: Field) =>
    errors[field] && (
      <p id={`${id}-${field}-error`} className="field-error">
        {errors[field]}
      </p>
    );

  return (
    <section className="panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Add server</h2>
      <form className="add-server" onSubmit={(e) => void onSubmit(e)} noValidate>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            ref={refs.name}
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={describedBy('name', `${id}-name-hint`)}
          />
          <p id={`${id}-name-hint`} className="hint">
            Letters, digits, ".", "_" or "-"; used in client configs.
          </p>
          {fieldError('name')}
        </div>
        <fieldset className="field">
          <legend>Runs as</legend>
          {MODES.map(([value, label]) => (
            <label key={value} className="choice">
              <input
                {...{ type: 'radio', name: 'mode', value }}
                checked={mode === value}
                onChange={() => setMode(value)}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {mode === 'url' && (
          <AddRemoteFields
            id={id}
            url={url}
            setUrl={setUrl}
            transport={transport}
            setTransport={setTransport}
            headers={headers}
            setHeaders={setHeaders}
            urlRef={refs.url}
            headersRef={refs.headers}
            errors={{ url: errors.url, headers: errors.headers }}
          />
        )}
        {mode === 'command' && (
          <>
            <TextFields
              id={id}
              errorOf={errorOf}
              rows={[
                [
                  'command',
                  'Command',
                  command,
                  setCommand,
                  { placeholder: 'npx', inputRef: refs.command },
                ],
                [
                  'args',
                  'Arguments',
                  args,
                  setArgs,
                  { rows: 3, hint: ARGS_HINT, areaRef: refs.args },
                ],
                ['folders', 'Read-only folders', folders, setFolders, FOLDERS],
              ]}
            />
            <fieldset className="field">
              <legend>Isolation</legend>
              <label className="choice">
                <input
                  ref={refs.isolation}
                  type="radio"
                  name="isolation"
                  value="sandbox"
                  checked={isolation === 'sandbox'}
                  onChange={() => setIsolation('sandbox')}
                />
                Sandboxed (recommended)
              </label>
              <label className="choice">
                <input
                  type="radio"
                  name="isolation"
                  value="off"
                  checked={isolation === 'off'}
                  disabled={offLocked !== undefined}
                  onChange={() => setIsolation('off')}
                />
                Not sandboxed: runs with your full user rights
                {offLocked && <span className="locked-note">Locked: {offLocked}</span>}
              </label>
              {fieldError('isolation')}
            </fieldset>
          </>
        )}
        {formError && (
          <p className="notice notice-error" role="alert">
            {showUntrusted(formError)}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add server'}
          </button>
        </div>
        <p className="status" role="status">
          {status}
        </p>
      </form>
    </section>
  );
}
