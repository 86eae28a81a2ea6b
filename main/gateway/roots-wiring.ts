/**
 * Roots mediation as the core builds it: one folder inbox, "always" saved through the config
 * store (which checks the managed layer and bumps the revision), and per session a mediator that
 * checks folders against the server's effective policy at the time of asking.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { addRoot } from '../../app/policy/policy-edits';
import type { Guards } from '../../app/policy/guards';
import type { Policy, Server } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import { launchPolicy } from '../config/guard-layers';
import { FolderInbox } from './roots-inbox';
import { folderGuard } from './roots-guard';
import { RootsMediator } from './roots-mediator';
import { hostFolderReal } from './roots-paths';
import type { RootsFactory } from './roots-session';

/** The part of the config store mediation needs. */
export interface RootsConfig {
  readServer(name: string): Readonly<Server> | undefined;
  guards(): Guards | undefined;
  updateServer(
    name: string,
    change: (server: Server) => { policy?: Policy },
  ): Promise<Result<Server, { message: string }>>;
}

/** The folder inbox and the mediator factory the supervisor hands each session. */
export function createRootsMediation(deps: {
  config: RootsConfig;
  audit: (event: AuditEventInput) => void;
  wardenHome: string;
  home: string | undefined;
}): { inbox: FolderInbox; factory: (server: string, clientLabel: string) => RootsFactory } {
  const { config } = deps;
  const inbox = new FolderInbox({
    audit: deps.audit,
    persistRoot: async (server, root) => {
      const result = await config.updateServer(server, (s) => ({
        policy: addRoot(s.policy, root),
      }));
      if (!result.ok) throw new Error(result.error.message);
    },
  });
  const factory =
    (server: string, clientLabel: string): RootsFactory =>
    (side) =>
      new RootsMediator({
        ...side,
        server,
        clientLabel,
        real: hostFolderReal,
        inbox,
        audit: deps.audit,
        forbidden: folderGuard({
          policy: () => config.readServer(server)?.policy,
          effective: (policy) => launchPolicy(policy, { global: config.guards() }),
          home: deps.home,
          wardenHome: deps.wardenHome,
        }),
      });
  return { inbox, factory };
}
