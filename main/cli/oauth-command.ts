/**
 * `warden servers sign-in NAME` and `sign-out NAME`: the core signs in (it owns the secret store
 * and opens the browser: the desktop app's shell, or the system browser with the address printed
 * on the terminal that runs it) and answers once the sign-in is complete.
 */
import type { OAuthStatusView } from '../../app/contract/oauth';
import { showUntrusted } from '../../app/text/untrusted-text';
import type { CliIo } from './cli-io';

type Call = <T>(op: string, input: unknown) => Promise<T | undefined>;

function describeStatus(name: string, status: OAuthStatusView): string {
  switch (status.kind) {
    case 'signed-in':
      return status.expiresAt !== undefined
        ? `Signed in to "${name}"; the access token is refreshed before ${new Date(status.expiresAt).toISOString()}.`
        : `Signed in to "${name}".`;
    case 'sign-in-required':
      return `"${name}" needs a new sign-in: ${showUntrusted(status.reason)} (${status.remedy})`;
    case 'signed-out':
      return `Not signed in to "${name}".`;
    case 'not-required':
      return `"${name}" does not sign in with OAuth.`;
  }
}

/** Runs `sign-in` or `sign-out` for `name`; the exit status. */
export async function runOAuthCommand(
  sub: 'sign-in' | 'sign-out',
  name: string,
  call: Call,
  io: CliIo,
): Promise<number> {
  const shown = showUntrusted(name);
  if (sub === 'sign-out') {
    const done = await call<{ signedOut: boolean }>('servers.signOut', { name });
    if (!done) return 1;
    io.stdout(done.signedOut ? `Signed out of "${shown}".\n` : `Not signed in to "${shown}".\n`);
    return 0;
  }
  io.stderr(`Signing in to "${shown}": finish in the browser that opens.\n`);
  const status = await call<OAuthStatusView>('servers.signIn', { name });
  if (!status) return 1;
  io.stdout(`${describeStatus(shown, status)}\n`);
  return status.kind === 'signed-in' ? 0 : 1;
}
