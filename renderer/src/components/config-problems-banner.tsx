/**
 * Tells the user that their config file could not be used: what was wrong and where the file was
 * moved (it is kept, never overwritten), so that nothing they configured silently disappears.
 */
import { useShallow } from 'zustand/react/shallow';
import { hostSelectors } from '../store/host/host-slice';
import { useRoot } from '../store/store-context';
import { showUntrusted } from '../../../app/text/untrusted-text';

export function ConfigProblemsBanner() {
  const problems = useRoot(useShallow(hostSelectors.problems));
  if (problems.length === 0) return null;
  return (
    <div className="notice notice-error banner" role="alert">
      {problems.map((p) => (
        <p key={`${p.at}-${p.movedTo ?? ''}`}>
          Your configuration could not be used: {showUntrusted(p.message)}.
          {p.movedTo ? (
            <>
              {' '}
              The file was kept as <code>{p.movedTo}</code> and Warden started with an empty
              configuration; fix it and move it back to restore your servers.
            </>
          ) : null}
        </p>
      ))}
    </div>
  );
}
