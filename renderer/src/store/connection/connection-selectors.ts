/** Reads of the connection slice. */
import type { Root } from '../root-store';

/** What the connection banner says, or undefined when all is well. */
function problem(s: Root): { text: string; hint?: string } | undefined {
  const c = s.connection;
  switch (c.kind) {
    case 'open':
      return undefined;
    case 'connecting':
      return c.attempt === 0 ? undefined : { text: 'Reconnecting to Warden…' };
    case 'waiting':
      return {
        text: 'Lost the connection to Warden. Retrying…',
        hint:
          c.attempt >= 3
            ? 'If you restarted "warden serve", open the new address it printed: each run has a new token.'
            : undefined,
      };
    case 'stopped':
      return c.reason === 'no-token'
        ? {
            text: 'This page needs the address printed by "warden serve".',
            hint: 'Sign in at the address printed by "warden serve", on its /login page, with the session token printed there.',
          }
        : { text: `Disconnected from Warden (${c.reason}).` };
    case 'signed-out':
      // Shown for the moment before the page goes to /login, which says more.
      return {
        text: c.why === 'expired' ? 'Your session with Warden ended.' : 'Signed out of Warden.',
        hint: 'Going to the sign-in page…',
      };
  }
}

export const connectionSelectors = {
  status: (s: Root) => s.connection,
  isOpen: (s: Root) => s.connection.kind === 'open',
  problem,
};
