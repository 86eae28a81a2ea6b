/**
 * What `warden servers show` (and add, edit) print about one server: its command, isolation,
 * roots, network, environment, limits and rules, each value from the config shown as untrusted
 * text.
 */
import type { ServerView } from '../../app/contract/servers';
import { argRuleText } from '../../app/policy/arg-rules';
import { describeLimits } from '../../app/policy/defaults';
import type { ToolsPolicy } from '../../app/policy/policy-schema';
import { showUntrusted } from '../../app/text/untrusted-text';
import { badge } from './servers-list-output';

/** At most this many tool names a line; the rest are counted. */
const TOOLS_SHOWN = 12;

const names = (list: readonly string[]) =>
  showUntrusted(list.slice(0, TOOLS_SHOWN).join(', ')) +
  (list.length > TOOLS_SHOWN ? ` and ${list.length - TOOLS_SHOWN} more` : '');

/** Its pinned, disabled and approval-asking tools, a line each (none for a server with none). */
function toolLines(tools: ToolsPolicy): string[] {
  const pinned = Object.keys(tools.pinned).sort();
  return [
    ...(pinned.length ? [`tools:      ${pinned.length} pinned: ${names(pinned)}`] : []),
    ...(tools.disabled.length ? [`disabled:   ${names(tools.disabled)}`] : []),
    ...(tools.approval.length ? [`approval:   ${names(tools.approval)}`] : []),
  ];
}

/** The server, one field a line. */
export function describeServer(view: ServerView): string {
  const { server } = view;
  const p = server.policy;
  const roots = p.filesystem.roots.map(
    (r) => `${showUntrusted(r.path)} (${r.access === 'write' ? 'rw' : 'ro'})`,
  );
  const limits = describeLimits(p.limits, p.isolation === 'sandbox');
  return [
    `name:       ${showUntrusted(server.name)}`,
    server.remote
      ? `url:        ${showUntrusted(view.commandLine)}`
      : `command:    ${showUntrusted(view.commandLine)}`,
    `isolation:  ${badge(view)}`,
    `revision:   ${server.revision}`,
    `roots:      ${roots.length ? roots.join(', ') : '(none)'}`,
    `network:    ${p.network.mode}${p.network.allow.length ? ` allow ${showUntrusted(p.network.allow.join(', '))}` : ''}${p.network.deny.length ? ` deny ${showUntrusted(p.network.deny.join(', '))}` : ''}`,
    `env:        ${showUntrusted([...p.env.pass, ...Object.keys(p.env.set).map((k) => `${k}=…`)].join(', ')) || '(base only)'}`,
    `limits:     ${limits.length ? limits.join(', ') : '(none)'}`,
    ...(p.tools.argRules?.length
      ? [`arg rules:  ${showUntrusted(p.tools.argRules.map(argRuleText).join(', '))}`]
      : []),
    ...(p.tools.credentials ? [`credentials: ${p.tools.credentials}`] : []),
    ...toolLines(p.tools),
    ...(server.acknowledged
      ? []
      : ['warning:    new server: check the full command above before starting it']),
  ].join('\n');
}
