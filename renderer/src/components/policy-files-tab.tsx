/**
 * Isolation and files: the sandbox switch (turning it off asks first), the filesystem roots, each
 * read-only or writable, added through the system folder picker in the desktop app and a path
 * field everywhere, the paths hidden from this server alone, and the server's exceptions to the
 * guards. Problems are shown beside a path.
 */
import { useEffect, useId, useState } from 'react';
import type { Policy, Root } from '../../../app/policy/policy-schema';
import { useShallow } from 'zustand/react/shallow';
import { desktopShell } from '../contract-client/desktop-shell';
import { hostSelectors } from '../store/host/host-slice';
import { instancesSelectors } from '../store/instances/instances-selectors';
import { useRoot } from '../store/store-context';
import { checkRootPath } from './policy-checks';
import { PolicyExceptionsField } from './policy-exceptions-field';
import { PolicyHiddenField } from './policy-hidden-field';
import { SandboxOffDialog } from './sandbox-off-dialog';
import { SwitchButton } from './switch-button';
import { usePolicyLocks } from './use-policy-locks';

export function PolicyFilesTab(props: {
  server: string;
  policy: Policy;
  onChange: (policy: Policy) => void;
  errors: Record<string, string>;
}) {
  const { policy, onChange } = props;
  const id = useId();
  const [confirmOff, setConfirmOff] = useState(false);
  const locks = usePolicyLocks();
  const [path, setPath] = useState('');
  const [pickError, setPickError] = useState<string | undefined>();
  const roots = policy.filesystem.roots;
  const problem = checkRootPath(
    path,
    roots.map((r) => r.path),
  );
  const shell = desktopShell();
  const launchProblems = useRoot(useShallow(instancesSelectors.rootProblems(props.server)));
  const rootChecks = useRoot(hostSelectors.rootChecks);
  const checkRoots = useRoot((s) => s.checkRoots);
  // Each folder is checked on this host as a launch would, whenever the list changes.
  const pathsKey = JSON.stringify(roots.map((r) => r.path));
  useEffect(() => {
    void checkRoots(JSON.parse(pathsKey) as string[]);
  }, [pathsKey, checkRoots]);

  const setRoots = (next: Root[]) => onChange({ ...policy, filesystem: { roots: next } });
  const addRoot = (p: string) => {
    const t = p.trim();
    if (
      t === '' ||
      checkRootPath(
        t,
        roots.map((r) => r.path),
      )
    )
      return;
    setRoots([...roots, { path: t, access: 'read' }]);
    setPath('');
  };
  const pick = async () => {
    setPickError(undefined);
    const chosen = await shell.pickFolder?.();
    if (chosen === undefined) return;
    const bad = checkRootPath(
      chosen,
      roots.map((r) => r.path),
    );
    if (bad) setPickError(bad);
    else addRoot(chosen);
  };

  return (
    <div className="tab-body">
      <section aria-labelledby={`${id}-iso`}>
        <h3 id={`${id}-iso`}>Isolation</h3>
        <SwitchButton
          checked={policy.isolation === 'sandbox'}
          label="Sandbox isolation"
          locked={policy.isolation === 'sandbox' ? locks.isolationOff() : undefined}
          onChange={(on) =>
            on ? onChange({ ...policy, isolation: 'sandbox' }) : setConfirmOff(true)
          }
        />
        {policy.isolation === 'off' && (
          <p className="notice notice-error">
            Not sandboxed: {props.server} will run with your full user rights: every file, every
            secret in your environment, the whole network.
          </p>
        )}
        {props.errors['policy.isolation'] && (
          <p className="field-error">{props.errors['policy.isolation']}</p>
        )}
      </section>
      <section aria-labelledby={`${id}-roots`}>
        <h3 id={`${id}-roots`}>Folders</h3>
        <p className="hint">
          Nothing else of your files is visible to the server. System folders are read-only.
        </p>
        <ul className="roots" aria-label="Folders the server can see">
          {roots.map((r, i) => {
            const check = rootChecks[r.path];
            const err =
              props.errors[`policy.filesystem.roots[${i}].path`] ??
              props.errors[`policy.filesystem.roots[${i}]`] ??
              (check && !check.ok
                ? `Not usable on this host: ${check.message}. To fix: ${check.remedy}`
                : undefined) ??
              launchProblems[r.path];
            return (
              <li key={r.path} className="root" data-root={r.path}>
                <code>{r.path}</code>
                <SwitchButton
                  checked={r.access === 'write'}
                  label="Writable"
                  context={r.path}
                  states={['read and write', 'read only']}
                  onChange={(w) =>
                    setRoots(
                      roots.map((x, j) => (j === i ? { ...x, access: w ? 'write' : 'read' } : x)),
                    )
                  }
                />
                <button
                  type="button"
                  onClick={() => setRoots(roots.filter((_, j) => j !== i))}
                  aria-label={`Remove folder ${r.path}`}
                >
                  Remove
                </button>
                {err && <p className="field-error">{err}</p>}
              </li>
            );
          })}
          {roots.length === 0 && (
            <li className="muted">No folders: the server sees none of your files.</li>
          )}
        </ul>
        {roots.some((r) => r.access === 'write') && (
          <p className="notice notice-warn" role="note" data-writable-warning>
            Warden keeps the workspace files in a writable folder read-only (<code>.git</code>,{' '}
            <code>.vscode</code>, <code>.mcp.json</code>, <code>.envrc</code>, …) unless an
            exception below allows one, and does not let {props.server} leave new ones there: git,
            editors and AI clients run code from them as you, outside any sandbox. Everything else
            in it, code you run included, {props.server} can change: make a folder writable only if
            you would let {props.server} decide what is in it.
          </p>
        )}
        <div className="field">
          <label htmlFor={`${id}-path`}>Folder path</label>
          <div className="inline-add">
            <input
              id={`${id}-path`}
              value={path}
              onChange={(e) => setPath(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addRoot(path);
                }
              }}
              placeholder="/home/me/project"
              spellCheck={false}
              autoComplete="off"
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-path-error` : undefined}
            />
            <button
              type="button"
              disabled={path.trim() === '' || !!problem}
              onClick={() => addRoot(path)}
            >
              Add folder
            </button>
            {shell.pickFolder && (
              <button type="button" onClick={() => void pick()}>
                Choose folder…
              </button>
            )}
          </div>
          {(problem ?? pickError) && (
            <p id={`${id}-path-error`} className="field-error" aria-live="polite">
              {problem ?? pickError}
            </p>
          )}
          <p className="hint">
            Added read-only; switch a folder to read and write if the server must change it.
          </p>
        </div>
      </section>
      <PolicyHiddenField policy={policy} onChange={onChange} errors={props.errors} />
      <PolicyExceptionsField policy={policy} onChange={onChange} errors={props.errors} />
      <SandboxOffDialog
        open={confirmOff}
        server={props.server}
        onCancel={() => setConfirmOff(false)}
        onConfirm={() => {
          setConfirmOff(false);
          onChange({ ...policy, isolation: 'off' });
        }}
      />
    </div>
  );
}
