/**
 * A server's folders on its row: one chip per folder with its access (read only, or read and
 * write) as a toggle and a remove button, and an add control: the system folder picker in the
 * desktop app, a path field checked as it is typed everywhere. Each change is saved at once.
 */
import { useId, useState } from 'react';
import type { Root } from '../../../app/policy/policy-schema';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { desktopShell } from '../contract-client/desktop-shell';
import { checkRootPath } from './policy-checks';
import type { useInlinePolicy } from './use-inline-policy';

export function RowFolders(props: {
  server: string;
  roots: readonly Root[];
  disabled: boolean;
  save: ReturnType<typeof useInlinePolicy>;
}) {
  const { roots, save, server } = props;
  const id = useId();
  const [adding, setAdding] = useState(false);
  const [path, setPath] = useState('');
  const shell = desktopShell();
  const paths = roots.map((r) => r.path);
  const problem = checkRootPath(path, paths);

  const setRoots = (what: string, next: (roots: Root[]) => Root[]) =>
    save(what, (p) => ({ ...p, filesystem: { roots: next(p.filesystem.roots) } }));
  const add = async (p: string) => {
    const t = p.trim();
    if (t === '' || checkRootPath(t, paths)) return;
    const failed = await setRoots(`Folder ${t} added, read only.`, (rs) => [
      ...rs,
      { path: t, access: 'read' },
    ]);
    if (!failed) {
      setPath('');
      setAdding(false);
    }
  };
  const pick = async () => {
    const chosen = await shell.pickFolder?.();
    if (chosen !== undefined) setPath(chosen);
  };

  return (
    <div className="row-group" role="group" aria-labelledby={`${id}-label`}>
      <span id={`${id}-label`} className="row-label">
        Folders<span className="visually-hidden"> of {server}</span>
      </span>
      <ul className="chips">
        {roots.map((r) => {
          const shown = showUntrusted(r.path);
          const writable = r.access === 'write';
          return (
            <li key={r.path} className={`chip chip-folder ${writable ? 'chip-rw' : ''}`}>
              <span className="chip-text" title={shown}>
                {shown}
              </span>
              <button
                type="button"
                className="chip-access"
                aria-pressed={writable}
                disabled={props.disabled}
                title={
                  writable
                    ? 'Read and write; click to make read only'
                    : 'Read only; click to allow writing'
                }
                onClick={() =>
                  void setRoots(
                    `Folder ${r.path} is now ${writable ? 'read only' : 'read and write'}.`,
                    (rs) =>
                      rs.map((x) =>
                        x.path === r.path ? { ...x, access: writable ? 'read' : 'write' } : x,
                      ),
                  )
                }
              >
                {writable ? 'read/write' : 'read-only'}
                <span className="visually-hidden"> writable {r.path}</span>
              </button>
              <button
                type="button"
                className="chip-remove"
                disabled={props.disabled}
                aria-label={`Remove folder ${r.path} from ${server}`}
                onClick={() =>
                  void setRoots(`Folder ${r.path} removed.`, (rs) =>
                    rs.filter((x) => x.path !== r.path),
                  )
                }
              >
                ×
              </button>
            </li>
          );
        })}
        {roots.length === 0 && !adding && <li className="chip-empty muted">none</li>}
      </ul>
      {adding ? (
        <span className="chip-add">
          <label htmlFor={`${id}-path`} className="visually-hidden">
            Folder to add to {server}
          </label>
          <input
            id={`${id}-path`}
            className="chip-input"
            value={path}
            autoFocus
            placeholder="/home/me/project"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-error` : undefined}
            onChange={(e) => setPath(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                void add(path);
              }
              if (e.key === 'Escape') setAdding(false);
            }}
          />
          {shell.pickFolder && (
            <button type="button" className="small" onClick={() => void pick()}>
              Choose…
            </button>
          )}
          <button
            type="button"
            className="small"
            disabled={path.trim() === '' || !!problem}
            onClick={() => void add(path)}
          >
            Add<span className="visually-hidden"> folder to {server}</span>
          </button>
          <button type="button" className="small link" onClick={() => setAdding(false)}>
            Cancel
          </button>
          {problem && (
            <span id={`${id}-error`} className="field-error chip-error-text">
              {problem}
            </span>
          )}
        </span>
      ) : (
        <button
          type="button"
          className="chip-add-button"
          disabled={props.disabled}
          onClick={() => setAdding(true)}
        >
          + Folder<span className="visually-hidden"> for {server}</span>
        </button>
      )}
    </div>
  );
}
