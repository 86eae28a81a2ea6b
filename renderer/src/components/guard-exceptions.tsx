/**
 * Per-server exceptions to the inherited guards, always shown in red: a hidden path a server may
 * see (`unhide`), and a workspace file it may write in its writable folders (`unprotect`). On a
 * server's row and detail (`ServerExceptions`) and, for every server, on the Policy screen
 * (`PolicyExceptions`).
 */
import type { ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ServerGuards } from '../../../app/policy/guards';
import type { WorkspaceName } from '../../../app/policy/workspace-files';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';

/** The exceptions of one server's own guards; absent lists mean none. */
export type GuardExceptions = Partial<Pick<ServerGuards, 'unhide' | 'unprotect'>> | undefined;

const hasExceptions = (g: GuardExceptions): boolean =>
  (g?.unhide ?? []).length > 0 || (g?.unprotect ?? []).length > 0;

/** `a, b, c`, each in the path style, escaped: a policy is untrusted text. */
function pathList(items: readonly string[]): ReactNode {
  return items.map((item, i) => (
    <span key={item}>
      {i > 0 ? ', ' : ''}
      <span className="exception-path">{showUntrusted(item)}</span>
    </span>
  ));
}

/** The exceptions of one server, in red, or nothing. */
export function ServerExceptions(props: { server: string; guards: GuardExceptions }) {
  const unhide = props.guards?.unhide ?? [];
  const unprotect = props.guards?.unprotect ?? [];
  if (unhide.length === 0 && unprotect.length === 0) return null;
  const both = unhide.length > 0 && unprotect.length > 0;
  return (
    <p className="guard-exception" data-exceptions={props.server}>
      <strong>{both ? 'Exceptions:' : 'Exception:'}</strong> this server may{' '}
      {unhide.length > 0 && (
        <span data-exception="unhide">
          see {unhide.length === 1 ? 'the hidden path' : 'the hidden paths'} {pathList(unhide)}
        </span>
      )}
      {both && ', and may '}
      {unprotect.length > 0 && (
        <span data-exception="unprotect">
          write {unprotect.length === 1 ? 'the workspace file' : 'the workspace files'}{' '}
          {pathList(unprotect)} in its writable folders
        </span>
      )}
      .
    </p>
  );
}

/** Named to say what a workspace file is; typed so that a name the app drops fails to compile. */
const WORKSPACE_EXAMPLES: readonly WorkspaceName[] = ['.git', '.vscode', '.mcp.json', '.envrc'];

/** Every server with an exception, on the Policy screen. */
export function PolicyExceptions() {
  // Server objects keep their identity while unchanged, so a shallow compare holds the list.
  const servers = useRoot(
    useShallow((s) =>
      s.servers.filter((v) => hasExceptions(v.server.policy.guards)).map((v) => v.server),
    ),
  );
  const navigate = useRoot((s) => s.navigate);
  return (
    <section className="policy-section" aria-labelledby="exceptions-heading">
      <h3 id="exceptions-heading">Exceptions</h3>
      <p className="muted" data-workspace-files>
        Workspace files ({pathList(WORKSPACE_EXAMPLES)}, …) are kept read-only in the folders a
        server may write: git, editors and AI clients run code from them as you, outside any
        sandbox.
      </p>
      {servers.length === 0 ? (
        <p className="muted">
          No server is excepted: none may see a hidden path or write a workspace file.
        </p>
      ) : (
        <ul className="exception-list">
          {servers.map((server) => (
            <li key={server.name}>
              <button
                type="button"
                className="link"
                onClick={() => navigate({ kind: 'server', server: server.name })}
              >
                {showUntrusted(server.name)}
              </button>
              <ServerExceptions server={server.name} guards={server.policy.guards} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
