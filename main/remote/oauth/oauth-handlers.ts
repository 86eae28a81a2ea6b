/**
 * The core's OAuth operations: sign in to a remote server through the system browser, sign out,
 * and read where its sign-in stands. The sign-in runs in the core because the core owns the
 * secret store (the OS keychain in the desktop app); failures come back as contract errors with
 * the remedy of the OAuth error.
 */
import type { ContractError } from '../../../app/contract/contract-error';
import type { OAuthOperationName } from '../../../app/contract/oauth';
import { type Result, err, ok } from '../../../app/result';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Handlers } from '../../core/contract-router';
import type { SecretStore } from '../../secrets/secret-store';
import { findOAuthFlowError } from './oauth-errors';
import { oauthStatus, signIn, signOut } from './sign-in';
import { type OAuthCapableServer, oauthTargetOf } from './remote-auth';

/** The network path of a sign-in: the server's own egress (its policy and address guard). */
export interface SignInEgress {
  fetch: FetchLike;
  close(): void;
}

export interface OAuthServices<S extends OAuthCapableServer> {
  getServer(name: string): S | undefined;
  secretStore: SecretStore;
  /** The state folder's `run`, where the sign-in's locks are shared with other processes. */
  lockDir?: string;
  openBrowser(url: URL): Promise<void>;
  /** Where discovery, registration and token requests go; the process's fetch when absent. */
  egressFor?(server: S): Promise<Result<SignInEgress, ContractError>>;
}

function asContractError(error: unknown): ContractError {
  const flow = findOAuthFlowError(error);
  if (!flow) return { kind: 'internal', message: (error as Error).message };
  return {
    kind: flow.kind === 'store' ? 'internal' : 'unauthorized',
    message: flow.message,
    remedy: flow.remedy,
  };
}

/** Builds the handlers of the OAuth operations. */
export function createOAuthHandlers<S extends OAuthCapableServer>(
  s: OAuthServices<S>,
): Pick<Handlers, OAuthOperationName> {
  const lookUp = (name: string) => {
    const server = s.getServer(name);
    if (!server)
      return err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` });
    const target = oauthTargetOf(server);
    if (!target) {
      return err<ContractError>({
        kind: 'invalid-input',
        message: `${name} does not sign in with OAuth`,
        remedy: 'only a remote server added with --oauth signs in',
      });
    }
    return ok({ server, target });
  };
  return {
    'servers.signIn': async ({ name }) => {
      const found = lookUp(name);
      if (!found.ok) return found;
      const egress = s.egressFor ? await s.egressFor(found.value.server) : undefined;
      if (egress && !egress.ok) return egress;
      try {
        return ok(
          await signIn(found.value.target, {
            store: s.secretStore,
            ...(s.lockDir === undefined ? {} : { lockDir: s.lockDir }),
            openBrowser: (url) => s.openBrowser(url),
            ...(egress ? { fetchFn: egress.value.fetch } : {}),
          }),
        );
      } catch (error) {
        return err(asContractError(error));
      } finally {
        egress?.value.close();
      }
    },
    'servers.signOut': async ({ name }) => {
      if (!s.getServer(name))
        return err({ kind: 'not-found', message: `no server named "${name}"` });
      try {
        return ok({ signedOut: await signOut(s.secretStore, name, s.lockDir) });
      } catch (error) {
        return err(asContractError(error));
      }
    },
    'servers.oauthStatus': async ({ name }) => {
      const server = s.getServer(name);
      if (!server) return err({ kind: 'not-found', message: `no server named "${name}"` });
      if (!oauthTargetOf(server)) return ok({ kind: 'not-required' as const });
      try {
        return ok(await oauthStatus(s.secretStore, name));
      } catch (error) {
        return err(asContractError(error));
      }
    },
  };
}
