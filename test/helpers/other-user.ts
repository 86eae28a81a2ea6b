/**
 * Another local user, to try a read as it would happen: run as root, a command runs as
 * WARDEN_TEST_USER (default wtest) through setpriv, as CI does; elsewhere the tests that need it
 * are skipped, saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export const otherUser = process.env.WARDEN_TEST_USER ?? 'wtest';

const hasUser = (() => {
  try {
    execFileSync('id', ['-u', otherUser], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Why another user cannot be tried here, if it cannot. */
export const noOtherUser: string | undefined =
  process.getuid?.() !== 0
    ? 'needs root to act as another user (CI runs it as root)'
    : !hasUser
      ? `needs the unprivileged user ${otherUser} (set WARDEN_TEST_USER)`
      : undefined;

/** Runs `argv` as the other user: its exit status and what it wrote. */
export function asOtherUser(argv: string[]): { status: number | null; out: string } {
  const r = spawnSync(
    'setpriv',
    [`--reuid=${otherUser}`, `--regid=${otherUser}`, '--init-groups', ...argv],
    { cwd: '/', encoding: 'utf8' },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}
