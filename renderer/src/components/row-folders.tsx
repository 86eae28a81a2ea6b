/**
 * A server's folders on its row: one chip per folder (its path cut in the middle, so that the
 * informative end shows, whole in its title) with its access (read only, or read and write) as a
 * toggle and a remove button, and an add control: the system folder picker in the
 * desktop app, a path field checked as it is typed everywhere. Each change is saved at once.
 */
import { useId } from 'react';
import type { Root } from '../../../app/policy/policy-schema';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { desktopShell } from '../contract-client/desktop-shell';
import { ChipAdder } from './chip-adder';
import { middlePath } from './display-format';
import { pickFolderToAdd } from './folder-choice';
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
  const shell = desktopShell();
  const paths = roots.map((r) => r.path);

  const setRoots = (what: string, next: (roots: Root[]) => Root[]) =>
    save(what, (p) => ({ ...p, filesystem: { roots: next(p.filesystem.roots) } }));
  const add = async (p: string) => {
    const t = p.trim();
    if (t === '' || checkRootPath(t, paths)) return false;
    const failed = await setRoots(`Folder ${t} added, read only.`, (rs) => [
      ...rs,
      { path: t, access: 'read' },
    ]);
    return !failed;
  };
  const pick = async (fill: (path: string) => void) => {
    const chosen = await pickFolderToAdd(shell);
    if (chosen !== undefined) fill(chosen);
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
              <span className="chip-text" title={shown} data-path={shown}>
                <span aria-hidden="true">{middlePath(shown)}</span>
                <span className="visually-hidden">{shown}</span>
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
        {roots.length === 0 && <li className="chip-empty muted">none</li>}
      </ul>
      <ChipAdder
        what="Folder"
        server={server}
        fieldLabel={`Folder to add to ${server}`}
        placeholder="/home/me/project"
        disabled={props.disabled}
        check={(text) => checkRootPath(text, paths)}
        actions={[{ label: 'Add', context: ` folder to ${server}`, run: add }]}
        extra={(fill) =>
          shell.pickFolder && (
            <button type="button" className="small" onClick={() => void pick(fill)}>
              Choose…
            </button>
          )
        }
      />
    </div>
  );
}
