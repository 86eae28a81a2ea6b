/**
 * The main navigation. A new screen joins by adding an entry to `navEntries` and a case to the
 * screen switch in app.tsx.
 */
import { inboxSelectors } from '../store/inbox/inbox-slice';
import type { Screen } from '../store/nav/nav-slice';
import { navSelectors } from '../store/nav/nav-slice';
import { useRoot } from '../store/store-context';

export interface NavEntry {
  kind: Screen['kind'];
  label: string;
  /** Other screens that count as inside this entry (for aria-current). */
  includes?: Screen['kind'][];
}

export const navEntries: NavEntry[] = [
  { kind: 'servers', label: 'Servers', includes: ['policy', 'server'] },
  { kind: 'inbox', label: 'Inbox' },
  { kind: 'audit', label: 'Audit log' },
  { kind: 'parent-policy', label: 'Policy' },
  { kind: 'import', label: 'Import' },
  { kind: 'clients', label: 'Clients' },
  { kind: 'host', label: 'Host status' },
];

export function AppNav() {
  const current = useRoot(navSelectors.kind);
  const navigate = useRoot((s) => s.navigate);
  const pending = useRoot(inboxSelectors.count);
  return (
    <nav className="app-nav" aria-label="Main">
      <ul>
        {navEntries.map((e) => {
          const active = e.kind === current || (e.includes ?? []).includes(current);
          return (
            <li key={e.kind}>
              <button
                type="button"
                aria-current={active ? 'page' : undefined}
                onClick={() => navigate({ kind: e.kind } as Screen)}
              >
                {e.label}
                {e.kind === 'inbox' && pending > 0 && (
                  <span className="count" aria-label={`${pending} pending`}>
                    {pending}
                  </span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
