/**
 * A server's network on its row: the mode, allowed domains and denied domains as chips in two
 * styles, and an add control checked as it is typed (Enter allows; the Deny button denies).
 * Allowing a domain while the network is off switches it to the allowlist, and the toast says so.
 */
import { useId } from 'react';
import type { NetworkMode, NetworkPolicy } from '../../../app/policy/policy-schema';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { ChipAdder } from './chip-adder';
import { checkPattern, normalPattern } from './policy-checks';
import type { useInlinePolicy } from './use-inline-policy';

const modeLabels: Record<NetworkMode, string> = {
  none: 'No network',
  allowlist: 'Allowlist',
  ask: 'Ask each time',
};

export function RowNetwork(props: {
  server: string;
  network: NetworkPolicy;
  disabled: boolean;
  save: ReturnType<typeof useInlinePolicy>;
  /** Why allowing a pattern is refused (the managed rule), shown instead of allowing it. */
  refuse?: (pattern: string) => string | undefined;
}) {
  const { network, save, server } = props;
  const id = useId();
  const existing = [...network.allow, ...network.deny];

  const add = async (list: 'allow' | 'deny', text: string) => {
    if (text.trim() === '' || checkPattern(text, existing)) return false;
    const pattern = normalPattern(text);
    const switchOn = list === 'allow' && network.mode === 'none';
    const failed = await save(
      `${pattern} ${list === 'allow' ? 'allowed' : 'denied'}${switchOn ? '; network set to the allowlist' : ''}.`,
      (p) => ({
        ...p,
        network: {
          ...p.network,
          ...(switchOn ? { mode: 'allowlist' as const } : {}),
          [list]: [...p.network[list], pattern],
        },
      }),
    );
    return !failed;
  };
  const remove = (list: 'allow' | 'deny', pattern: string) =>
    void save(
      `${pattern} removed from the ${list === 'allow' ? 'allowed' : 'denied'} list.`,
      (p) => ({
        ...p,
        network: { ...p.network, [list]: p.network[list].filter((x) => x !== pattern) },
      }),
    );

  const chip = (list: 'allow' | 'deny', pattern: string) => {
    const shown = showUntrusted(pattern);
    return (
      <li key={`${list}:${pattern}`} className={`chip chip-${list}`} data-domain={pattern}>
        <span className="chip-mark" aria-hidden="true">
          {list === 'allow' ? '✓' : '⊘'}
        </span>
        <span className="chip-text">
          <span className="visually-hidden">{list === 'allow' ? 'allowed' : 'denied'} </span>
          {shown}
        </span>
        <button
          type="button"
          className="chip-remove"
          disabled={props.disabled}
          aria-label={`Remove ${pattern} from ${list === 'allow' ? 'allowed' : 'denied'} domains of ${server}`}
          onClick={() => remove(list, pattern)}
        >
          ×
        </button>
      </li>
    );
  };

  return (
    <div className="row-group" role="group" aria-label={`Network rules of ${server}`}>
      <label className="row-label" htmlFor={`${id}-mode`}>
        Network<span className="visually-hidden"> of {server}</span>
      </label>
      <select
        id={`${id}-mode`}
        className={`mode-select mode-${network.mode}`}
        value={network.mode}
        disabled={props.disabled}
        onChange={(e) => {
          const mode = e.target.value as NetworkMode;
          void save(`Network set to ${modeLabels[mode].toLowerCase()}.`, (p) => ({
            ...p,
            network: { ...p.network, mode },
          }));
        }}
      >
        {(Object.keys(modeLabels) as NetworkMode[]).map((m) => (
          <option key={m} value={m}>
            {modeLabels[m]}
          </option>
        ))}
      </select>
      <ul className="chips">
        {network.allow.map((p) => chip('allow', p))}
        {network.deny.map((p) => chip('deny', p))}
      </ul>
      <ChipAdder
        what="Domain"
        server={server}
        fieldLabel={`Domain for ${server}`}
        placeholder="api.example.com"
        disabled={props.disabled}
        check={(text) => checkPattern(text, existing)}
        actions={[
          {
            label: 'Allow',
            context: ` domain for ${server}`,
            run: (t) => add('allow', t),
            refuse: (t) => props.refuse?.(normalPattern(t)),
          },
          { label: 'Deny', context: ` domain for ${server}`, run: (t) => add('deny', t) },
        ]}
      />
    </div>
  );
}
