/**
 * A remote server's OAuth sign-in on its detail screen: signed in (and until when the token
 * runs), not signed in, or "Sign in again" in red with the reason once the authorization server
 * refused the stored sign-in; the button signs in through the system browser. Nothing shows for a
 * server that does not sign in with OAuth.
 */
import { useCallback, useEffect, useState } from 'react';
import type { OAuthStatusView } from '../../../app/contract/oauth';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useWardenApi } from '../store/store-context';
import { callErrorText } from './import-screen';

function statusText(status: OAuthStatusView): string {
  switch (status.kind) {
    case 'signed-in':
      return 'Signed in';
    case 'signed-out':
      return 'Not signed in';
    case 'sign-in-required':
      return 'Sign in again';
    case 'not-required':
      return '';
  }
}

const BADGE: Record<OAuthStatusView['kind'], string> = {
  'signed-in': 'badge-sandboxed',
  'signed-out': 'badge-unavailable',
  'sign-in-required': 'badge-off',
  'not-required': '',
};

function buttonText(status: OAuthStatusView, busy: boolean): string {
  if (busy) return 'Waiting for the browser…';
  return status.kind === 'signed-out' ? 'Sign in' : 'Sign in again';
}

const SHOWN = new Set<string>(['signed-in', 'signed-out', 'sign-in-required']);

export function DetailSignIn(props: { name: string }) {
  const api = useWardenApi();
  const [status, setStatus] = useState<OAuthStatusView | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api['servers.oauthStatus']({ name: props.name }).then(setStatus, (e: unknown) =>
      setError(callErrorText(e)),
    );
  }, [api, props.name]);
  const signIn = useCallback(() => {
    setBusy(true);
    setError(undefined);
    api['servers.signIn']({ name: props.name })
      .then(setStatus, (e: unknown) => setError(callErrorText(e)))
      .finally(() => setBusy(false));
  }, [api, props.name]);
  if (!status || !SHOWN.has(status.kind)) {
    return error ? <p className="notice notice-error">{error}</p> : null;
  }
  const again = status.kind === 'sign-in-required';
  return (
    <section className="sign-in" aria-labelledby="detail-sign-in" data-oauth={status.kind}>
      <h3 id="detail-sign-in">Sign-in</h3>
      <p>
        <span className={`badge ${BADGE[status.kind]}`}>{statusText(status)}</span>
        {status.kind === 'signed-in' && status.expiresAt !== undefined && (
          <span className="muted">
            {' '}
            token refreshed before {new Date(status.expiresAt).toLocaleString()}
          </span>
        )}
        {again && <span className="muted"> {showUntrusted(status.reason)}</span>}
      </p>
      <button
        type="button"
        className="small"
        disabled={busy}
        onClick={signIn}
        aria-label={`${buttonText(status, busy)} to ${showUntrusted(props.name)}`}
      >
        {buttonText(status, busy)}
      </button>
      {error && <p className="notice notice-error">{error}</p>}
    </section>
  );
}
