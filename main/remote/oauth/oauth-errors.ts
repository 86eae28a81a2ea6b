/**
 * Errors of a remote server's OAuth sign-in, as values with a kind and a remedy. They are thrown
 * (as `OAuthFlowError`) only where the MCP SDK's transports call back into the provider, so that
 * the gateway and the CLI receive the kind rather than a bare 401.
 */

export type OAuthErrorKind =
  /** No usable tokens: never signed in, signed out, or the refresh token was refused. */
  | 'sign-in-required'
  /** The authorization server answered the sign-in with an error (e.g. access_denied). */
  | 'authorization-denied'
  /** Nobody completed the sign-in in the browser before the deadline. */
  | 'timeout'
  /** The authorization URL is not one a browser should be sent to. */
  | 'unsafe-url'
  /** Tokens could not be refreshed for a passing reason (network, server error). */
  | 'refresh-failed'
  /** Discovery, registration or the token exchange failed. */
  | 'sign-in-failed'
  /** The secret store refused to read or write. */
  | 'store';

export interface OAuthError {
  kind: OAuthErrorKind;
  message: string;
  remedy: string;
}

/** An `OAuthError` that can travel through the SDK's transports as an exception. */
export class OAuthFlowError extends Error implements OAuthError {
  readonly kind: OAuthErrorKind;
  readonly remedy: string;

  constructor(error: OAuthError) {
    super(error.message);
    this.name = 'OAuthFlowError';
    this.kind = error.kind;
    this.remedy = error.remedy;
  }
}

/** The remedy every "sign in again" state points to. */
export function signInRemedy(serverName: string): string {
  return `run: warden servers sign-in ${serverName}`;
}

/** The error the gateway raises when a server needs a person to sign in (again). */
export function signInRequired(serverName: string, why: string): OAuthFlowError {
  return new OAuthFlowError({
    kind: 'sign-in-required',
    message: `${serverName}: ${why}`,
    remedy: signInRemedy(serverName),
  });
}

/** The error found somewhere in a chain of causes, if any. */
export function findOAuthFlowError(error: unknown): OAuthFlowError | undefined {
  for (let e = error, depth = 0; e !== undefined && depth < 8; depth++) {
    if (e instanceof OAuthFlowError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}
