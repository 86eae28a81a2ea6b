/**
 * The decision buttons of an inbox card or a drifted tool, and the error of the last decision
 * beside them. While a decision is on its way the buttons are disabled, so that a double click does
 * not send a second one. Each button carries hidden context so that a screen reader names what it
 * decides.
 */
import { type ReactNode, useState } from 'react';
import type { ContractError } from '../../../app/contract/contract-error';
import type { Result } from '../../../app/result';
import { showUntrusted } from '../../../app/text/untrusted-text';

export interface DecisionButton<D extends string> {
  decision: D;
  label: string;
  className?: string;
  /** Read after the label by screen readers only, e.g. " to read_file". */
  context: ReactNode;
}

/** What to say after a decision: nothing when it was taken, why not otherwise. */
export function decisionError(r: Result<boolean, ContractError>): string | undefined {
  if (!r.ok) return r.error.message;
  return r.value ? undefined : 'Already decided or expired.';
}

export function DecisionActions<D extends string>(props: {
  buttons: ReadonlyArray<DecisionButton<D>>;
  /** Sends the decision; answers the error to show, if any. */
  decide: (decision: D) => Promise<string | undefined>;
}) {
  const [error, setError] = useState<string | undefined>();
  // One decision at a time: the buttons rest disabled until the core has answered.
  const [busy, setBusy] = useState(false);
  const decide = (d: D) => {
    setBusy(true);
    void props.decide(d).then((e) => {
      setError(e);
      setBusy(false);
    });
  };
  return (
    <>
      <div className="actions" aria-busy={busy}>
        {props.buttons.map((b) => (
          <button
            key={b.decision}
            type="button"
            className={b.className}
            disabled={busy}
            onClick={() => decide(b.decision)}
          >
            {b.label}
            <span className="visually-hidden">{b.context}</span>
          </button>
        ))}
      </div>
      {error && (
        <p className="field-error" role="alert">
          {showUntrusted(error)}
        </p>
      )}
    </>
  );
}
