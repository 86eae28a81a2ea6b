/**
 * What `warden servers show` (and add, edit) print about one server: its command, isolation,
 * roots, network, environment, limits and rules, each value from the config shown as untrusted
 * text.
 */
import type { ServerView } from '../../app/contract/servers';
import { argRuleText } from '../../app/policy/arg-rules';
import { describeLimits } from '../../app/policy/defaults';
import { showUntrusted } from '../../app/text/untrusted-text';
import { badge } from './servers-list-output';

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
    ...(server.acknowledged
      ? []
      : ['warning:    new server: check the full command above before starting it']),
  ].join('\n');
}
