/**
 * The launcher of remote servers: instead of a sandboxed process, one upstream MCP session per
 * client session, opened through an egress broker of the instance's own, so that the server's
 * network policy (the managed and global allowlists included) and the address guard apply to
 * the URL itself and every connection is audited. Header values come from the secret store.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { type LaunchError, launchError } from '../../app/contract/launch-error';
import { compileRules } from '../../app/policy/network-patterns';
import type { Server } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import { networkDecisionAudit } from '../egress/egress-audit';
import { EgressBroker } from '../egress/egress-broker';
import type { GrantInbox } from '../egress/grant-inbox';
import type { Lookup } from '../egress/resolve-destination';
import type { InstanceLauncher, Launched } from '../supervisor/launcher';
import { headerSecrets } from '../core/server-secrets';
import { MessageTooLarge } from './body-limit';
import { guardedFetch } from './guarded-fetch';
import { remoteProcess } from './remote-process';
import { createRemoteTransport } from './upstream-transport';

export interface RemoteLauncherDeps {
  grants?: GrantInbox;
  audit: (event: AuditEventInput) => void;
  /** The server's header values by name; an error refuses the launch. */
  resolveHeaders: (server: Server) => Promise<Result<Record<string, string>, LaunchError>>;
  /** The OAuth provider of a server that signs in, if any; it refreshes through `fetch`. */
  authProvider?: (server: Server, fetch: FetchLike) => OAuthClientProvider | undefined;
  /** The largest reply (or SSE event) read from the server. */
  maxMessageBytes: number;
  lookup?: Lookup;
}

/** A remote server's own network path: an egress broker under its network policy (the address
 * guard and the audit included) and a fetch that dials through it. */
export interface RemoteEgress {
  fetch: FetchLike;
  close(): void;
}

/** The network path of one session of `server` (an upstream session, or an OAuth sign-in). */
export function remoteEgress(
  server: Server,
  instanceId: string,
  d: Pick<RemoteLauncherDeps, 'grants' | 'audit' | 'maxMessageBytes' | 'lookup'>,
  /** Called when a reply (or SSE event) passes `maxMessageBytes`. */
  onTooLarge?: (max: number) => void,
): Result<RemoteEgress, LaunchError> {
  const { network } = server.policy;
  const rules = compileRules(network);
  if (!rules.ok)
    return err({
      kind: 'invalid-network-policy',
      message: `the network policy of ${server.name} has invalid entries`,
      remedy: 'fix the listed patterns in the server settings',
      fields: rules.error,
    });
  if (network.mode === 'none')
    return err({
      kind: 'invalid-network-policy',
      message: `${server.name} is a remote server, but its network policy allows no destination`,
      remedy: `allow the server's host: warden servers edit ${server.name} --net allowlist --allow HOST`,
      fields: [{ field: 'network.mode', message: 'a remote server needs its URL allowed' }],
    });
  const broker = new EgressBroker({
    server: server.name,
    instanceId,
    mode: network.mode,
    rules: rules.value,
    askTimeoutMs: network.askTimeoutSeconds * 1000,
    ...(d.grants ? { grants: d.grants } : {}),
    ...(d.lookup ? { lookup: d.lookup } : {}),
    onDecision: (e: EgressDecisionEvent) => d.audit(networkDecisionAudit(e)),
  });
  const fetch = guardedFetch({
    dial: broker.dial,
    maxMessageBytes: d.maxMessageBytes,
    ...(onTooLarge ? { onTooLarge } : {}),
  });
  return ok({
    fetch: fetch.fetch,
    close: () => {
      void broker.close();
      void fetch.close().catch(() => undefined);
    },
  });
}

/** Builds the launcher for servers with a `remote` upstream. */
export function createRemoteLauncher(d: RemoteLauncherDeps): InstanceLauncher {
  return {
    async launch({ server, instanceId }): Promise<Result<Launched, LaunchError>> {
      const { remote } = server;
      if (!remote)
        return err(launchError('internal', `${server.name} has a command, not a remote URL`));
      let tooLarge = (_max: number): void => undefined;
      const egress = remoteEgress(server, instanceId, d, (max) => tooLarge(max));
      if (!egress.ok) return egress;
      const headers = await d.resolveHeaders(server);
      if (!headers.ok) {
        egress.value.close();
        return headers;
      }
      const { fetch } = egress.value;
      const authProvider = d.authProvider?.(server, fetch);
      const transport = createRemoteTransport(remote, {
        headers: headers.value,
        fetch,
        ...(authProvider ? { authProvider } : {}),
      });
      const values = Object.values(headers.value)
        .flatMap(headerSecrets)
        .filter((v) => v.length >= 4)
        .sort((a, b) => b.length - a.length);
      const process = remoteProcess({
        transport,
        redact: (line) => values.reduce((l, v) => l.split(v).join('[redacted]'), line),
        onEnd: () => egress.value.close(),
        onTooLarge: (max) =>
          d.audit({
            kind: 'limit.hit',
            outcome: 'refused',
            server: server.name,
            instance: instanceId,
            limit: 'messageBytes',
            value: max,
            detail: `the remote server sent a message over the limit of ${max} bytes; the upstream session was ended`,
          }),
      });
      tooLarge = (max) => process.fail(new MessageTooLarge(max));
      return ok({ process, backend: 'remote', limitsNotEnforced: [] });
    },
  };
}
