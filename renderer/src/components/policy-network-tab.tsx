/**
 * Network: the mode (no network, allowlist, ask) and the allowed and denied patterns and
 * addresses as chips, each checked as it is typed with the same parser the broker uses.
 */
import { useId } from 'react';
import type { NetworkMode, Policy } from '../../../app/policy/policy-schema';
import { ChipList } from './chip-list';
import { checkAddress, checkPattern, normalPattern } from './policy-checks';
import { usePolicyLocks } from './use-policy-locks';

const modes: Array<{ mode: NetworkMode; label: string; hint: string }> = [
  { mode: 'none', label: 'No network', hint: 'No proxy and no route out.' },
  { mode: 'allowlist', label: 'Allowlist', hint: 'Only the allowed destinations; others refused.' },
  { mode: 'ask', label: 'Ask', hint: 'Unknown destinations wait while you decide in the Inbox.' },
];

/** Core errors for one list, by chip index. */
function itemErrors(errors: Record<string, string>, list: string): Record<number, string> {
  const out: Record<number, string> = {};
  for (const [field, message] of Object.entries(errors)) {
    const m = new RegExp(`^policy\\.network\\.${list}\\[(\\d+)\\]`).exec(field);
    if (m) out[Number(m[1])] = message;
  }
  return out;
}

export function PolicyNetworkTab(props: {
  policy: Policy;
  onChange: (policy: Policy) => void;
  errors: Record<string, string>;
}) {
  const id = useId();
  const locks = usePolicyLocks();
  const lockedAllow = (t: string) => {
    const why = t.trim() === '' ? undefined : locks.allow(normalPattern(t));
    return why && `Locked: ${why}`;
  };
  const net = props.policy.network;
  const set = (patch: Partial<Policy['network']>) =>
    props.onChange({ ...props.policy, network: { ...net, ...patch } });
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
      <ChipList
        label="Allowed destinations"
        hint="host, *.domain (subdomains), an IP address; optional :port. Deny wins over allow."
        values={net.allow}
        check={(t, existing) => checkPattern(t, existing) ?? lockedAllow(t)}
        normalize={normalPattern}
        onChange={(allow) => set({ allow })}
        placeholder="api.example.com:443"
        itemErrors={itemErrors(props.errors, 'allow')}
      />
      <ChipList
        label="Denied destinations"
        values={net.deny}
        check={checkPattern}
        normalize={normalPattern}
        onChange={(deny) => set({ deny })}
        placeholder="*.tracker.example"
        itemErrors={itemErrors(props.errors, 'deny')}
      />
      <ChipList
        label="Private addresses allowed"
        hint="Loopback, private and link-local addresses are refused after resolution unless listed here (address or CIDR range)."
        values={net.allowAddresses}
        check={checkAddress}
        onChange={(allowAddresses) => set({ allowAddresses })}
        placeholder="127.0.0.1"
        itemErrors={itemErrors(props.errors, 'allowAddresses')}
      />
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
