import { useId } from 'react';

/**
 * An on/off switch: a button with role="switch" whose name is its visible label (plus hidden
 * context, e.g. which folder), its state in aria-checked and, for sighted users, a word beside it.
 * A `locked` switch cannot be changed and says why beside it (the rule that decides).
 */
export function SwitchButton(props: {
  checked: boolean;
  label: string;
  /** Appended to the accessible name only, to tell apart switches with the same label. */
  context?: string;
  /** The visible state words; default "On" / "Off". */
  states?: [on: string, off: string];
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  /** Why the switch cannot be changed, e.g. the managed rule; shown beside it. */
  locked?: string;
}) {
  const [on, off] = props.states ?? ['On', 'Off'];
  const lockId = useId();
  return (
    <span className={`switch-wrap${props.locked ? ' switch-locked' : ''}`}>
      <button
        type="button"
        role="switch"
        aria-checked={props.checked}
        className={`switch ${props.checked ? 'switch-on' : 'switch-off'}`}
        disabled={props.disabled || props.locked !== undefined}
        title={props.locked}
        aria-describedby={props.locked ? lockId : undefined}
        onClick={() => props.onChange(!props.checked)}
      >
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        <span className="switch-text">{props.label}</span>
        {props.context && <span className="visually-hidden"> {props.context}</span>}
      </button>
      <span className="switch-state" aria-hidden="true">
        {props.checked ? on : off}
      </span>
      {props.locked && (
        <span id={lockId} className="locked-note" data-locked="">
          Locked: {props.locked}
        </span>
      )}
    </span>
  );
}
