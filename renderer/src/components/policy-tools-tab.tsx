/**
 * Tools: every tool the server has reported (its pinned definition) with its annotations, a
 * switch to enable it and one to ask before each call, whether the server's whole listings leave
 * it out, and a way to forget its pin; any drift to review; and the argument rules and
 * credential scanning applied to calls. What the server wrote (names, descriptions, annotation
 * titles) is shown with its control and bidi characters escaped.
 */
import { useShallow } from 'zustand/react/shallow';
import type { Policy, ToolDefinition } from '../../../app/policy/policy-schema';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot } from '../store/store-context';
import { driftSelectors } from '../store/tools/drift-slice';
import { DriftDiff } from './drift-diff';
import { PolicyArgRules } from './policy-arg-rules';
import { SwitchButton } from './switch-button';
import { ToolForget } from './tool-forget';

/** The annotation hints a person should see, as short tags. */
export function annotationTags(def: ToolDefinition): string[] {
  const a = def.annotations;
  if (!a || typeof a !== 'object') return [];
  const out: string[] = [];
  const rec = a as Record<string, unknown>;
  if (rec.readOnlyHint === true) out.push('read-only');
  if (rec.destructiveHint === true) out.push('destructive');
  if (rec.destructiveHint === false) out.push('not destructive');
  if (rec.idempotentHint === true) out.push('idempotent');
  if (rec.openWorldHint === true) out.push('open world');
  if (rec.openWorldHint === false) out.push('closed world');
  if (typeof rec.title === 'string') out.push(`title: ${rec.title}`);
  return out;
}

export function PolicyToolsTab(props: {
  server: string;
  policy: Policy;
  onChange: (policy: Policy) => void;
}) {
  const drift = useRoot(useShallow(driftSelectors.of(props.server)));
  const listing = useRoot(driftSelectors.listingOf(props.server));
  const tools = props.policy.tools;
  const defs = Object.values(tools.pinned).sort((a, b) => a.name.localeCompare(b.name));
  const toggle = (list: string[], name: string, on: boolean) =>
    on ? [...list.filter((n) => n !== name), name] : list.filter((n) => n !== name);
  const set = (patch: Partial<Policy['tools']>) =>
    props.onChange({ ...props.policy, tools: { ...tools, ...patch } });
  return (
    <div className="tab-body">
      {drift.map((d) => (
        <DriftDiff key={d.tool} drift={d} />
      ))}
      {defs.length === 0 && (
        <p className="muted">
          No tools seen yet. Tools are listed (and pinned) the first time a client lists them
          through Warden.
        </p>
      )}
      <ul className="tools" aria-label={`Tools of ${props.server}`}>
        {defs.map((def) => {
          const enabled = !tools.disabled.includes(def.name);
          const ask = tools.approval.includes(def.name);
          const tags = annotationTags(def);
          const name = showUntrusted(def.name);
          const unlisted = listing?.unlisted.find((u) => u.name === def.name);
          return (
            <li key={def.name} className="tool" data-tool={def.name}>
              <div className="tool-head">
                <strong>{name}</strong>
                {tags.map((t) => (
                  <span key={t} className="tag">
                    {showUntrusted(t)}
                  </span>
                ))}
                {unlisted && <span className="tag tag-warn">not listed</span>}
              </div>
              {def.description && (
                <p className="tool-desc">{showUntrusted(def.description, { multiline: true })}</p>
              )}
              <div className="tool-switches">
                <SwitchButton
                  checked={enabled}
                  label="Enabled"
                  context={name}
                  onChange={(on) => set({ disabled: toggle(tools.disabled, def.name, !on) })}
                />
                <SwitchButton
                  checked={ask}
                  label="Ask before each call"
                  context={name}
                  onChange={(on) => set({ approval: toggle(tools.approval, def.name, on) })}
                />
              </div>
              {unlisted && (
                <p className="hint" data-unlisted>
                  Left out of the server’s tool listings since{' '}
                  {new Date(unlisted.since).toLocaleString()}: it may no longer offer this tool. If
                  so, its pinned definition can be forgotten.
                </p>
              )}
              <ToolForget server={props.server} tool={def.name} />
            </li>
          );
        })}
      </ul>
      <PolicyArgRules policy={props.policy} onChange={props.onChange} />
    </div>
  );
}
