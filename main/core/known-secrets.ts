/**
 * Every secret Warden holds for the user, whichever server it belongs to: a value one server was
 * given must not reach the log, or another server through a call, either. Every audit event asks,
 * so the list is recomputed only when the servers or the resolved values change.
 */
import { type AuditSecret, redactSecrets } from '../../app/audit/redact';
import { redactCredentialFormats } from '../../app/secrets/credential-scan';
import type { ConfigStore } from '../config/config-store';
import type { SecretCache } from './secret-cache';
import { serverSecrets } from './server-secrets';

export interface KnownSecrets {
  /** Every server's secrets; the same frozen list while nothing changed. */
  readonly all: () => readonly AuditSecret[];
  /** The secrets of `server` alone, as stored now (none for a server not stored). */
  readonly of: (server: string) => AuditSecret[];
  /** What is recorded: the user's secrets and credentials of well-known formats replaced. */
  readonly redactFor: (server: string) => (value: unknown) => unknown;
}

/** The secrets of the servers in `config`, resolved through `secrets` and `hostEnv`. */
export function knownSecretsOf(
  config: ConfigStore,
  secrets: SecretCache,
  hostEnv: Readonly<Record<string, string | undefined>>,
): KnownSecrets {
  // The servers are a new array on every change; the list is never modified by its readers.
  let known: { servers: unknown; revision: number; list: readonly AuditSecret[] } | undefined;
  const all = (): readonly AuditSecret[] => {
    const servers = config.readServers();
    if (known?.servers !== servers || known.revision !== secrets.revision) {
      const list = servers.flatMap((s) => serverSecrets(s, (ref) => secrets.known(ref), hostEnv));
      known = { servers, revision: secrets.revision, list: Object.freeze(list) };
    }
    return known.list;
  };
  return {
    all,
    of: (server) => {
      const own = config.readServer(server);
      return own ? serverSecrets(own, (ref) => secrets.known(ref), hostEnv) : [];
    },
    redactFor: (_server) => (value) => redactCredentialFormats(redactSecrets(value, all())),
  };
}
