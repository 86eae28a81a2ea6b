/** The policy editor's tab list (arrow keys move between tabs, as the ARIA tabs pattern asks). */
import { type KeyboardEvent, type ReactNode, useRef } from 'react';

export type TabId = 'files' | 'network' | 'env' | 'limits' | 'tools' | 'command';

const tabs: Array<{ id: TabId; label: string }> = [
  { id: 'files', label: 'Isolation and folders' },
  { id: 'network', label: 'Network' },
  { id: 'env', label: 'Environment' },
  { id: 'limits', label: 'Limits' },
  { id: 'tools', label: 'Tools' },
  { id: 'command', label: 'Command' },
];

export function PolicyTabs(props: {
  current: TabId;
  onSelect: (tab: TabId) => void;
  panelId: string;
  children: ReactNode;
}) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const onKey = (e: KeyboardEvent, index: number) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    const to =
      e.key === 'Home'
        ? 0
        : e.key === 'End'
          ? tabs.length - 1
          : step
            ? (index + step + tabs.length) % tabs.length
            : -1;
    if (to < 0) return;
    e.preventDefault();
    props.onSelect(tabs[to]!.id);
    refs.current[to]?.focus();
  };
  return (
    <div className="tabs">
      <div role="tablist" aria-label="Policy sections">
        {tabs.map((t, i) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${props.panelId}-tab-${t.id}`}
            aria-selected={props.current === t.id}
            aria-controls={props.panelId}
            tabIndex={props.current === t.id ? 0 : -1}
            onClick={() => props.onSelect(t.id)}
            onKeyDown={(e) => onKey(e, i)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {props.children}
    </div>
  );
}
