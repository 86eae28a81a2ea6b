/** The page's toast: what was just saved, with Undo; it goes after a few seconds or on Dismiss. */
import { useEffect, useState } from 'react';
import { toastSelectors } from '../store/toast/toast-slice';
import { useRoot } from '../store/store-context';
import { showUntrusted } from '../../../app/text/untrusted-text';

const SHOWN_MS = 8000;

export function ToastView() {
  const toast = useRoot(toastSelectors.toast);
  const dismiss = useRoot((s) => s.dismissToast);
  const show = useRoot((s) => s.showToast);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!toast) return;
    const t = setTimeout(() => dismiss(toast.id), SHOWN_MS);
    return () => clearTimeout(t);
  }, [toast, dismiss]);
  return (
    <div className="toast-region" aria-live="polite">
      {toast && (
        <div className={`toast toast-${toast.tone ?? 'info'}`} data-toast>
          <span>{showUntrusted(toast.message)}</span>
          {toast.undo && (
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                const undo = toast.undo!;
                setBusy(true);
                void undo()
                  .then((problem) =>
                    show(
                      problem
                        ? { message: `Could not undo: ${problem}`, tone: 'error' }
                        : { message: 'Undone.' },
                    ),
                  )
                  .finally(() => setBusy(false));
              }}
            >
              Undo
            </button>
          )}
          <button type="button" className="link" onClick={() => dismiss(toast.id)}>
            Dismiss
          </button>
        </div>
      )}
    </div>
  );
}
