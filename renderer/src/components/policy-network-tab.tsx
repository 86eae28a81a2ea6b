/**
 * Network: the mode (no network, allowlist, ask) and the allowed and denied patterns and
 * addresses as chips, each checked as it is typed with the same parser the broker uses.
 */
import { type ComponentProps, useId } from 'react';
import type { NetworkMode } from '../../../app/policy/policy-schema';
import { ChipList } from './chip-list';
import { checkAddress, checkPattern, listItemErrors, normalPattern } from './policy-checks';
import { type PolicyTabProps, section } from './policy-tab-props';
import { usePolicyLocks } from './use-policy-locks';

const modes: Array<{ mode: NetworkMode; label: string; hint: string }> = [
  { mode: 'none', label: 'No network', hint: 'No proxy and no route out.' },
  { mode: 'allowlist', label: 'Allowlist', hint: 'Only the allowed destinations; others refused.' },
  { mode: 'ask', label: 'Ask', hint: 'Unknown destinations wait while you decide in the Inbox.' },
];

const pattern = { check: checkPattern, normalize: normalPattern };
const lists: Array<{
  key: 'allow' | 'deny' | 'allowAddresses';
  chips: Pick<
    ComponentProps<typeof ChipList>,
    'label' | 'hint' | 'check' | 'normalize' | 'placeholder'
  >;
}> = [
  {
    key: 'allow',
    chips: {
      label: 'Allowed destinations',
      hint: 'host, *.domain (subdomains), an IP address; optional :port. Deny wins over allow.',
      placeholder: 'api.example.com:443',
      ...pattern,
    },
  },
  {
    key: 'deny',
    chips: { label: 'Denied destinations', placeholder: '*.tracker.example', ...pattern },
  },
  {
    key: 'allowAddresses',
    chips: {
      label: 'Private addresses allowed',
      hint:
        'Loopback, private and link-local addresses are refused after resolution unless listed here (address or CIDR range). ' +
        'Where the sandbox has a network of its own (Linux with bubblewrap), localhost is the sandbox’s own until a loopback address is listed here or allowed above; then it is this computer’s, through Warden.',
      check: checkAddress,
      placeholder: '127.0.0.1',
    },
  },
];

export function PolicyNetworkTab(props: PolicyTabProps) {
  const id = useId();
  const locks = usePolicyLocks();
  const lockedAllow = (t: string) => {
    const why = t.trim() === '' ? undefined : locks.allow(normalPattern(t));
    return why && `Locked: ${why}`;
  };
  const [net, set] = section(props, 'network');
  return (
    <div className="tab-body">
      <fieldset className="field">
        <legend>Network mode</legend>
        {modes.map((m) => (
          <label key={m.mode} className="choice">
            <input
              type="radio"
              name={`${id}-mode`}
              value={m.mode}
              checked={net.mode === m.mode}
              onChange={() => set({ mode: m.mode })}
              aria-describedby={`${id}-${m.mode}-hint`}
            />
            {m.label}
            <span id={`${id}-${m.mode}-hint`} className="hint">
              {m.hint}
            </span>
          </label>
        ))}
      </fieldset>
      {net.mode === 'none' && (net.allow.length > 0 || net.deny.length > 0) && (
        <p className="notice notice-warn">
          The lists below are kept but unused while the mode is “No network”.
        </p>
      )}
      {lists.map((l) => (
        <ChipList
          key={l.key}
          {...l.chips}
          check={
            l.key === 'allow'
              ? (t: string, existing: readonly string[]) =>
                  checkPattern(t, existing) ?? lockedAllow(t)
              : l.chips.check
          }
          values={net[l.key]}
          onChange={(values) => set({ [l.key]: values })}
          itemErrors={listItemErrors(props.errors, `policy.network.${l.key}`)}
        />
      ))}
      <div className="field">
        <label htmlFor={`${id}-timeout`}>Seconds to wait for a decision</label>
        <input
          id={`${id}-timeout`}
          type="number"
          min={1}
          max={3600}
          value={net.askTimeoutSeconds}
          onChange={(e) => set({ askTimeoutSeconds: Math.trunc(Number(e.target.value)) })}
          aria-invalid={props.errors['policy.network.askTimeoutSeconds'] ? true : undefined}
        />
        <p className="hint">In “Ask” mode an unanswered destination is refused after this long.</p>
        {props.errors['policy.network.askTimeoutSeconds'] && (
          <p className="field-error">{props.errors['policy.network.askTimeoutSeconds']}</p>
        )}
      </div>
    </div>
  );
}
