/**
 * Why a server failed or stopped badly, on its row: the reason, the stderr lines that tell why
 * (the first error line and the last ones), and the fix as one button when the cause is known.
 */
import type { FailureHint } from '../../../app/contract/instances';
import { showUntrusted } from '../../../app/text/untrusted-text';
import type { ServerRunState } from '../store/instances/instances-selectors';

/** A reason as a sentence: capitalized, with a full stop. */
function sentence(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The reason without the stderr lines the core appended for clients; they are shown below. */
function withoutStderr(reason: string): string {
  return reason.replace(/; its stderr: .*?(?=; then |$)/s, '');
}

export function RowFailure(props: {
  server: string;
  run: ServerRunState;
  onFix: (hint: FailureHint) => void;
}) {
  const { run } = props;
  if (run.kind !== 'failed' && run.kind !== 'stopped') return null;
  if (run.kind === 'stopped' && !run.note) return null;
  const hint = run.hint;
  return (
    <div className={`row-failure ${run.kind === 'failed' ? 'is-failed' : ''}`} data-failure>
      <p className="failure-reason">
        {run.kind === 'failed'
          ? sentence(showUntrusted(run.lines ? withoutStderr(run.reason) : run.reason))
          : sentence(run.note ?? '')}
      </p>
      {run.kind === 'failed' && run.remedy && (
        <p className="remedy">To fix: {showUntrusted(run.remedy)}</p>
      )}
      {run.lines && run.lines.length > 0 && (
        <pre className="failure-lines" aria-label={`What ${props.server} wrote to stderr`}>
          {run.lines.map((l) => showUntrusted(l)).join('\n')}
        </pre>
      )}
      {hint && (
        <p className="failure-fix">
          <span className="failure-cause" title={showUntrusted(hint.path)}>
            {hint.kind === 'add-folder' ? (
              <>
                Likely cause: <span className="mono">{showUntrusted(hint.path)}</span> is outside
                every folder the sandbox shows.
              </>
            ) : (
              <>
                Likely cause: the server writes to{' '}
                <span className="mono">{showUntrusted(hint.path)}</span> in a read-only folder.
              </>
            )}
          </span>
          <button type="button" className="primary small" onClick={() => props.onFix(hint)}>
            {hint.kind === 'add-folder'
              ? `Add ${showUntrusted(hint.folder)} (read only)`
              : `Make ${showUntrusted(hint.root)} read and write`}
            <span className="visually-hidden"> for {props.server}</span>
          </button>
        </p>
      )}
    </div>
  );
}
