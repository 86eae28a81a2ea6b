/**
 * Whether the core that goes on with a session may adopt the launch made ahead of it. Apart from
 * the launch code (early-launch.ts), which that core, loading beside the server, does not load.
 */
import type { Guards } from '../../app/policy/guards';
import type { Server } from '../../app/policy/policy-schema';
import type { EarlyLaunch } from './early-launch';

/** Whether a core that reads `server` and `guards` would make the launch `early` made. */
export function matchesEarlyLaunch(
  early: EarlyLaunch,
  server: Readonly<Server> | undefined,
  guards: Readonly<Guards> | undefined,
): boolean {
  return (
    server !== undefined &&
    JSON.stringify(server) === JSON.stringify(early.server) &&
    JSON.stringify(guards) === JSON.stringify(early.guards)
  );
}
