/**
 * A unified diff of a client's config file, one line per row: added lines green, removed lines
 * red, context muted. The text comes from a file on disk (secrets already masked by the core), so
 * each line is shown through showUntrusted.
 */
import { showUntrusted } from '../../../app/text/untrusted-text';

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'diff-line diff-file';
  if (line.startsWith('@@')) return 'diff-line diff-hunk';
  if (line.startsWith('+')) return 'diff-line diff-add';
  if (line.startsWith('-')) return 'diff-line diff-del';
  return 'diff-line';
}

export function DiffView(props: { diff: string; label: string }) {
  if (!props.diff) return <p className="muted">No change to this file.</p>;
  const lines = props.diff.replace(/\n$/, '').split('\n');
  return (
    <pre className="diff-view" aria-label={props.label}>
      {lines.map((line, i) => (
        <span key={i} className={lineClass(line)}>
          {showUntrusted(line)}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
