/**
 * The tool gate the core's supervisor puts before each instance: its server's tools policy read
 * on every use, new pins saved through the config store, and the call guards (argument rules,
 * with a folder granted to the session counted as the server's, and credential scanning).
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { pinTools } from '../../app/policy/policy-edits';
import type { Root } from '../../app/policy/policy-schema';
import type { ConfigStore } from '../config/config-store';
import type { ApprovalInbox } from '../gateway/approval-inbox';
import { createCallGuards } from '../gateway/call-guards';
import type { LayersNow } from '../gateway/call-layers';
import { hostPathFacts } from '../gateway/host-paths';
import { withSessionFolders } from '../gateway/roots-session';
import type { ToolGate } from '../gateway/relay';
import { createToolGate } from '../gateway/tool-gate';
import type { DriftRegistry } from '../gateway/tool-drift';
import type { ToolListings } from '../gateway/tool-listings';
import type { KnownSecrets } from './known-secrets';

export interface InstanceGateDeps {
  config: ConfigStore;
  /** The folders granted to one session so far (roots mediation). */
  sessionFolders: (instance: string) => readonly Root[];
  known: KnownSecrets;
  drift: DriftRegistry;
  listings: ToolListings;
  approvals: ApprovalInbox;
  audit: (event: AuditEventInput) => void;
  layers: LayersNow;
  /** The host environment: its `HOME`, read as each gate is built, is where `~/…` points. */
  hostEnv: Readonly<Record<string, string | undefined>>;
}

/** The gate factory the supervisor calls for each instance of a server. */
export function instanceGate(d: InstanceGateDeps): (server: string, instance: string) => ToolGate {
  return (server, instance) =>
    createToolGate({
      server,
      instance,
      policy: () =>
        d.config.readServer(server)?.policy.tools ?? {
          disabled: [],
          approval: [],
          pinned: {},
          approvalTimeoutSeconds: 1,
        },
      pin: async (definitions) => {
        await d.config.updateServer(server, (s) => ({ policy: pinTools(s.policy, definitions) }));
      },
      drift: d.drift,
      listings: d.listings,
      approvals: d.approvals,
      audit: d.audit,
      redact: d.known.redactFor(server),
      guards: createCallGuards({
        server,
        instance,
        // A folder granted to this session counts as the server's for `within-roots`.
        policy: () => {
          const stored = d.config.readServer(server);
          const granted = d.sessionFolders(instance);
          return stored && withSessionFolders(stored, granted).policy;
        },
        paths: hostPathFacts,
        secrets: d.known.all,
        ownSecrets: () => d.known.of(server),
        approvals: d.approvals,
        audit: d.audit,
        redact: d.known.redactFor(server),
        layers: d.layers,
        ...(d.hostEnv.HOME ? { home: d.hostEnv.HOME } : {}),
      }),
    });
}
