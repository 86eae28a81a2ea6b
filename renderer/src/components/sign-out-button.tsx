/**
 * Signs this browser out of `warden serve`: shown in a browser signed in with a session only
 * (the desktop app and a script's token have no session to end).
 */
import { useState } from 'react';

export function SignOutButton({ signOut }: { signOut: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="sign-out"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        // It never fails: the page forgets the session and goes to /login whatever happens.
        void signOut();
      }}
    >
      {busy ? 'Signing out…' : 'Sign out'}
    </button>
  );
}
