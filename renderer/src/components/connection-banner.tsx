/** Tells the user when the page is not connected to the core, and what to do about it. */
import { useShallow } from 'zustand/react/shallow';
import { connectionSelectors } from '../store/connection/connection-selectors';
import { useRoot } from '../store/store-context';

export function ConnectionBanner() {
  const problem = useRoot(useShallow(connectionSelectors.problem));
  if (!problem) return null;
  return (
    <div className="notice notice-error banner" role="status">
      <p>{problem.text}</p>
      {problem.hint && <p>{problem.hint}</p>}
    </div>
  );
}
