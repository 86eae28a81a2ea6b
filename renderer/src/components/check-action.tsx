/**
 * A button that runs a check of the host (its label says so while it runs) and, under it, why
 * the last run failed with the remedy.
 */
import type { ContractError } from '../../../app/contract/contract-error';
import { showUntrusted } from '../../../app/text/untrusted-text';

export function CheckAction(props: {
  run: () => Promise<void>;
  running: boolean;
  label: string;
  runningLabel: string;
  /** What failed, before the error's own message, e.g. "Could not verify". */
  failed: string;
  error: ContractError | undefined;
}) {
  return (
    <>
      <div className="actions">
        <button type="button" onClick={() => void props.run()} disabled={props.running}>
          {props.running ? props.runningLabel : props.label}
        </button>
      </div>
      {props.error && (
        <p className="notice notice-error" role="alert">
          {props.failed}: {showUntrusted(`${props.error.message} ${props.error.remedy ?? ''}`)}
        </p>
      )}
    </>
  );
}
