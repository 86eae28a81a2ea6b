/**
 * The policy editor of one server: tabs for isolation and folders, network, environment, limits
 * and tools, edited as a draft and saved in one revision. Shows the revision, whether running
 * instances need a restart to apply it, and which declared limits this host enforces.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Policy } from '../../../app/policy/policy-schema';
import { hostSelectors } from '../store/host/host-slice';
import { instancesSelectors } from '../store/instances/instances-selectors';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { IsolationBadge } from './isolation-badge';
import { errorsUnder } from './policy-checks';
import { PolicyEnvTab } from './policy-env-tab';
import { PolicyFilesTab } from './policy-files-tab';
import { PolicyLimitsTab } from './policy-limits-tab';
import { PolicyNetworkTab } from './policy-network-tab';
import { PolicyToolsTab } from './policy-tools-tab';
import { PolicyLimitsSummary } from './policy-limits-summary';
import { PolicyTabs, type TabId } from './policy-tabs';

type FieldErrors = Array<{ field: string; message: string }>;

export function PolicyEditor(props: { name: string }) {
  const view = useRoot(serversSelectors.byName(props.name));
  const doctor = useRoot(hostSelectors.doctor);
  const live = useRoot(useShallow(instancesSelectors.liveOf(props.name)));
  const update = useRoot((s) => s.updateServer);
  const navigate = useRoot((s) => s.navigate);
  const id = useId();
  const [tab, setTab] = useState<TabId>('files');
  const [draft, setDraft] = useState<{ base: number; policy: Policy } | undefined>(
    view && { base: view.server.revision, policy: view.server.policy },
  );
  const [errors, setErrors] = useState<FieldErrors>([]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();
  const [saving, setSaving] = useState(false);

  const stored = view?.server;
  const dirty =
    !!stored && !!draft && JSON.stringify(draft.policy) !== JSON.stringify(stored.policy);
  // A change saved elsewhere (another window, an "always" grant) is taken in while nothing is edited.
  useEffect(() => {
    if (stored && (!draft || (!dirty && draft.base !== stored.revision))) {
      setDraft({ base: stored.revision, policy: stored.policy });
    }
  }, [stored, draft, dirty]);

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

  const change = (policy: Policy) => {
    setDraft({ base: draft.base, policy });
    setMessage(undefined);
  };
  const save = async () => {
    setSaving(true);
    // Pinned definitions are the gateway's, never edited here: keep the stored ones.
    const policy = {
      ...draft.policy,
      tools: { ...draft.policy.tools, pinned: stored.policy.tools.pinned },
    };
    const r = await update({ name: stored.name, policy, expectedRevision: draft.base });
    setSaving(false);
    if (r.ok) {
      setErrors([]);
      setDraft({ base: r.value.server.revision, policy: r.value.server.policy });
      setMessage({ text: `Saved as revision ${r.value.server.revision}.`, error: false });
    } else {
      setErrors(r.error.fields ?? []);
      const conflict =
        r.error.kind === 'conflict'
          ? ' The policy was changed elsewhere since you opened it: discard to see the new one.'
          : '';
      setMessage({
        text: `Not saved: ${r.error.message}.${conflict} ${r.error.remedy ?? ''}`.trim(),
        error: true,
      });
    }
  };
  const stale = live.filter((i) => i.revision < stored.revision);
  const tabErrors = (prefix: string) => errorsUnder(errors, prefix);

  return (
    <section className="panel policy-editor" aria-labelledby={`${id}-h`} data-policy={stored.name}>
      <div className="editor-head">
        <button type="button" className="link" onClick={() => navigate({ kind: 'servers' })}>
          ← Servers
        </button>
        <h2 id={`${id}-h`}>Policy of {stored.name}</h2>
        <IsolationBadge isolation={view.isolation} />
        <span className="revision" data-revision={stored.revision}>
          Revision {stored.revision}
        </span>
      </div>
      <p className="command">
        <span className="visually-hidden">Command: </span>
        <code>{view.commandLine}</code>
      </p>
      {stale.length > 0 && (
        <p className="notice notice-warn" data-restart-needed>
          Restart to apply:{' '}
          {stale.length === 1 ? 'an instance runs' : `${stale.length} instances run`} revision{' '}
          {Math.min(...stale.map((i) => i.revision))}; the policy is at revision {stored.revision}.
        </p>
      )}
      <PolicyLimitsSummary limits={stored.policy.limits} doctor={doctor} />
      <PolicyTabs current={tab} onSelect={setTab} panelId={`${id}-panel`}>
        <div
          id={`${id}-panel`}
          role="tabpanel"
          aria-labelledby={`${id}-panel-tab-${tab}`}
          tabIndex={0}
        >
          {tab === 'files' && (
            <PolicyFilesTab
              server={stored.name}
              policy={draft.policy}
              onChange={change}
              errors={tabErrors('policy.')}
            />
          )}
          {tab === 'network' && (
            <PolicyNetworkTab
              policy={draft.policy}
              onChange={change}
              errors={tabErrors('policy.network')}
            />
          )}
          {tab === 'env' && (
            <PolicyEnvTab
              policy={draft.policy}
              original={stored.policy}
              onChange={change}
              errors={tabErrors('policy.env')}
            />
          )}
          {tab === 'limits' && (
            <PolicyLimitsTab
              policy={draft.policy}
              doctor={doctor}
              onChange={change}
              errors={tabErrors('policy.')}
            />
          )}
          {tab === 'tools' && (
            <PolicyToolsTab server={stored.name} policy={draft.policy} onChange={change} />
          )}
        </div>
      </PolicyTabs>
      <div className="save-bar" role="region" aria-label="Save policy">
        <span>{dirty ? 'Unsaved changes' : 'No unsaved changes'}</span>
        <button
          type="button"
          className="primary"
          disabled={!dirty || saving}
          onClick={() => void save()}
        >
          {saving ? 'Saving…' : 'Save policy'}
        </button>
        <button
          type="button"
          disabled={!dirty || saving}
          onClick={() => {
            setDraft({ base: stored.revision, policy: stored.policy });
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
          {message?.text ?? ''}
        </p>
      </div>
    </section>
  );
}
