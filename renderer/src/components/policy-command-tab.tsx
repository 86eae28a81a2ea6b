/**
 * The command a server runs: program, arguments (one per line, no shell quoting) and working
 * folder. A changed command is what a client will start, so the full line is shown as it will be.
 */
import { useId, useState } from 'react';
import type { LaunchSpec } from '../../../app/policy/policy-schema';
import { argsFromText } from './add-server-fields';

/** The command line as shown (arguments with spaces or quotes single-quoted). */
export function shownCommand(launch: LaunchSpec): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return [launch.command, ...launch.args].map(quote).join(' ');
}

export function PolicyCommandTab(props: {
  launch: LaunchSpec;
  onChange: (launch: LaunchSpec) => void;
  changed: boolean;
  errors: Record<string, string>;
}) {
  const id = useId();
  const { launch } = props;
  const [argsText, setArgsText] = useState(launch.args.join('\n'));
  const err = (prefix: string) =>
    Object.entries(props.errors).find(([f]) => f.startsWith(prefix))?.[1];
  return (
    <div className="tab-body">
      <div className="field">
        <label htmlFor={`${id}-cmd`}>Program</label>
        <input
          id={`${id}-cmd`}
          value={launch.command}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => props.onChange({ ...launch, command: e.target.value })}
          aria-invalid={err('launch.command') ? true : undefined}
        />
        {err('launch.command') && <p className="field-error">{err('launch.command')}</p>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-args`}>Arguments</label>
        <textarea
          id={`${id}-args`}
          rows={4}
          value={argsText}
          spellCheck={false}
          aria-describedby={`${id}-args-hint`}
          onChange={(e) => {
            setArgsText(e.target.value);
            props.onChange({ ...launch, args: argsFromText(e.target.value) });
          }}
        />
        <p id={`${id}-args-hint`} className="hint">
          One argument per line, exactly as the program should receive it.
        </p>
        {err('launch.args') && <p className="field-error">{err('launch.args')}</p>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-cwd`}>Working folder (optional)</label>
        <input
          id={`${id}-cwd`}
          value={launch.cwd ?? ''}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => {
            const { cwd: _drop, ...rest } = launch;
            props.onChange(e.target.value ? { ...rest, cwd: e.target.value } : rest);
          }}
        />
      </div>
      {props.changed && (
        <div className="notice notice-warn" role="note">
          <p>After saving, Warden will run exactly:</p>
          <p>
            <code>{shownCommand(launch)}</code>
          </p>
        </div>
      )}
    </div>
  );
}
