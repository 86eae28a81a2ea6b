/**
 * The editor of one server: tabs for isolation and folders, network, environment, limits, tools
 * and the command, edited as a draft and saved in one revision. Shows the revision, whether
 * running instances need a restart to apply it, and which declared limits this host enforces.
 */
import { type FocusEvent, useCallback, useId, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { conflictText } from '../../../app/policy/policy-conflicts';
import { hostSelectors } from '../store/host/host-slice';
import { instancesSelectors } from '../store/instances/instances-selectors';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { DraftConflicts } from './draft-conflicts';
import { IsolationBadge } from './isolation-badge';
import { errorsUnder } from './policy-checks';
import { PolicyCommandTab } from './policy-command-tab';
import { PolicyEnvTab } from './policy-env-tab';
import { PolicyFilesTab } from './policy-files-tab';
import { PolicyLimitsSummary } from './policy-limits-summary';
import { PolicyLimitsTab } from './policy-limits-tab';
import { PolicyNetworkTab } from './policy-network-tab';
import { PolicyTabs, type TabId } from './policy-tabs';
import { PolicyToolsTab } from './policy-tools-tab';
import { useServerDraft } from './use-server-draft';
import { Untrusted } from './untrusted';
import { showUntrusted } from '../../../app/text/untrusted-text';

type FieldErrors = Array<{ field: string; message: string }>;

/**
 * A control reached with the keyboard brings the text that describes it along. The browser
 * scrolls the control itself clear of the save bar (the page keeps a scroll padding its height,
 * see useSaveBarPadding); the hint under it, however many lines it wraps to, is then scrolled into
 * view too.
 */
function showDescription(e: FocusEvent<HTMLElement>): void {
  const control = e.target;
  if (!(control instanceof HTMLElement) || !control.matches(':focus-visible')) return;
  for (const described of (control.getAttribute('aria-describedby') ?? '').split(/\s+/)) {
    const hint = described ? document.getElementById(described) : null;
    // Optional: not every DOM has it (jsdom).
    if (hint && e.currentTarget.contains(hint)) hint.scrollIntoView?.({ block: 'nearest' });
  }
}

/**
 * Keeps the page's scroll padding (policy.css) as tall as the save bar, which wraps to more lines
 * in a narrow window: focus and `scrollIntoView` then stop above the bar, however tall it is.
 */
function useSaveBarPadding(): (bar: HTMLDivElement | null) => void {
  const observer = useRef<ResizeObserver | undefined>(undefined);
  return useCallback((bar: HTMLDivElement | null) => {
    observer.current?.disconnect();
    observer.current = undefined;
    const root = document.documentElement;
    if (!bar || typeof ResizeObserver === 'undefined') {
      root.style.removeProperty('--save-bar-height');
      return;
    }
    observer.current = new ResizeObserver(() =>
      root.style.setProperty('--save-bar-height', `${bar.offsetHeight}px`),
    );
    observer.current.observe(bar);
  }, []);
}

export function PolicyEditor(props: { name: string }) {
  const view = useRoot(serversSelectors.byName(props.name));
  const doctor = useRoot(hostSelectors.doctor);
  const live = useRoot(useShallow(instancesSelectors.liveOf(props.name)));
  const navigate = useRoot((s) => s.navigate);
  const id = useId();
  const [tab, setTab] = useState<TabId>('files');
  const stored = view?.server;
  const { draft, dirty, launchChanged, setPolicy, setLaunch, reset, save, adoptVariable } =
    useServerDraft(stored);
  const [errors, setErrors] = useState<FieldErrors>([]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();
  const [saving, setSaving] = useState(false);
  const saveBar = useSaveBarPadding();

  if (!view || !stored || !draft) {
    return (
      <section className="panel">
        <h2>Policy</h2>
        <p className="muted">No server named “{props.name}”.</p>
        <button type="button" onClick={() => navigate({ kind: 'servers' })}>
          Back to servers
        </button>
      </section>
    );
  }

  const onSave = async () => {
    setSaving(true);
    const r = await save();
    setSaving(false);
    if (r.ok) {
      setErrors([]);
      setMessage({ text: `Saved as revision ${r.revision}.`, error: false });
      return;
    }
    setErrors(r.error.fields ?? []);
    const conflict =
      r.error.kind === 'conflict'
        ? ' It was changed elsewhere meanwhile: your edits are kept on the newer version; check them and save again.'
        : '';
    const text = `Not saved: ${r.error.message}.${conflict} ${r.error.remedy ?? ''}`;
    setMessage({ text: text.trim(), error: true });
  };
  const edit =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setMessage(undefined);
    };
  const stale = live.filter((i) => i.revision < stored.revision);
  const tabErrors = (prefix: string) => errorsUnder(errors, prefix);
  const panelId = `${id}-panel`;

  return (
    <section
      className="panel policy-editor"
      aria-labelledby={`${id}-h`}
      data-policy={stored.name}
      onFocus={showDescription}
    >
      <div className="editor-head">
        <button type="button" className="link" onClick={() => navigate({ kind: 'servers' })}>
          ← Servers
        </button>
        <h2 id={`${id}-h`}>
          Policy of <Untrusted text={stored.name} />
        </h2>
        <IsolationBadge isolation={view.isolation} />
        <span className="revision" data-revision={stored.revision}>
          Revision {stored.revision}
        </span>
      </div>
      <p className="command">
        <span className="visually-hidden">Command: </span>
        <code>
          <Untrusted text={view.commandLine} />
        </code>
      </p>
      {stale.length > 0 && (
        <p className="notice notice-warn" data-restart-needed>
          Restart to apply:{' '}
          {stale.length === 1 ? 'an instance runs' : `${stale.length} instances run`} revision{' '}
          {Math.min(...stale.map((i) => i.revision))}; the policy is at revision {stored.revision}.
        </p>
      )}
      <DraftConflicts fields={draft.conflicts.map((c) => conflictText(draft, c))} />
      <PolicyLimitsSummary limits={stored.policy.limits} doctor={doctor} />
      <PolicyTabs current={tab} onSelect={setTab} panelId={panelId}>
        <div id={panelId} role="tabpanel" aria-labelledby={`${panelId}-tab-${tab}`} tabIndex={0}>
          {tab === 'files' && (
            <PolicyFilesTab
              server={stored.name}
              policy={draft.policy}
              onChange={edit(setPolicy)}
              errors={tabErrors('policy.')}
            />
          )}
          {tab === 'network' && (
            <PolicyNetworkTab
              policy={draft.policy}
              onChange={edit(setPolicy)}
              errors={tabErrors('policy.network')}
            />
          )}
          {tab === 'env' && (
            <PolicyEnvTab
              server={stored.name}
              policy={draft.policy}
              original={stored.policy}
              onSecretSaved={(v, variable) => {
                adoptVariable(v.server, variable);
                setMessage({
                  text: `Secret saved as revision ${v.server.revision}.`,
                  error: false,
                });
              }}
              onChange={edit(setPolicy)}
              errors={tabErrors('policy.env')}
            />
          )}
          {tab === 'limits' && (
            <PolicyLimitsTab
              policy={draft.policy}
              doctor={doctor}
              onChange={edit(setPolicy)}
              errors={tabErrors('policy.')}
            />
          )}
          {tab === 'tools' && (
            <PolicyToolsTab server={stored.name} policy={draft.policy} onChange={edit(setPolicy)} />
          )}
          {tab === 'command' && !draft.launch && stored.remote && (
            <div className="tab-body">
              <p>
                Remote server: Warden connects to{' '}
                <code>
                  <Untrusted text={stored.remote.url} />
                </code>{' '}
                over {stored.remote.transport === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'}
                {stored.remote.headers.length > 0 &&
                  `, sending ${stored.remote.headers.map((h) => h.name).join(', ')} (values kept in the secret store)`}
                .
              </p>
            </div>
          )}
          {tab === 'command' && draft.launch && (
            <PolicyCommandTab
              launch={draft.launch}
              onChange={edit(setLaunch)}
              changed={launchChanged}
              errors={tabErrors('launch')}
            />
          )}
        </div>
      </PolicyTabs>
      <div className="save-bar" role="region" aria-label="Save policy" ref={saveBar}>
        <span>{dirty ? 'Unsaved changes' : 'No unsaved changes'}</span>
        <button
          type="button"
          className="primary"
          disabled={!dirty || saving}
          onClick={() => void onSave()}
        >
          {saving ? 'Saving…' : 'Save policy'}
        </button>
        <button
          type="button"
          disabled={!dirty || saving}
          onClick={() => {
            reset();
            setErrors([]);
            setMessage(undefined);
          }}
        >
          Discard changes
        </button>
        <p
          className={message?.error ? 'field-error' : 'status'}
          role={message?.error ? 'alert' : 'status'}
        >
          {showUntrusted(message?.text ?? '')}
        </p>
      </div>
    </section>
  );
}
