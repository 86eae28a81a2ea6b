/**
 * Host status, in the desktop app: secret values that Warden without the app (`warden serve`,
 * the command line while the app was closed) kept unencrypted in its own file. The app reads
 * only the OS keychain, so the servers that need them do not start here until they are moved;
 * one button moves them. Shown only while there is something to move (or a result to show).
 * Without the app (`warden serve`) there is no keychain: the section says where the values are
 * kept instead, unencrypted.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ContractError } from '../../../app/contract/contract-error';
import type { SecretsMoved, SecretsStatus } from '../../../app/contract/secrets';
import { toContractError } from '../store/servers/servers-slice';
import { useWardenApi } from '../store/store-context';
import { Untrusted } from './untrusted';
import { showUntrusted } from '../../../app/text/untrusted-text';

const values = (n: number) => (n === 1 ? '1 secret value' : `${n} secret values`);
const them = (n: number) => (n === 1 ? 'it' : 'them');

function Names(props: { names: readonly string[] }) {
  return (
    <ul className="secret-names">
      {props.names.map((name) => (
        <li key={name}>
          <code>
            <Untrusted text={name} />
          </code>
        </li>
      ))}
    </ul>
  );
}

/** A core without the app (`warden serve`): its values are in a file, unencrypted. */
function NoKeychain(props: { store: string }) {
  return (
    <section className="host-secrets" aria-labelledby="host-secrets-heading" data-host-secrets>
      <h3 id="host-secrets-heading">Secrets without a keychain</h3>
      <div className="notice notice-warn" data-no-keychain>
        <p>
          This Warden runs without the desktop app, so it has no OS keychain: the secret values it
          keeps are in <Untrusted text={props.store} />. Only your user can read that file, but so
          can any program that runs as you outside a sandbox.
        </p>
        <p className="hint">
          The desktop app keeps them encrypted in the OS keychain, and moves these into it from its
          Host status.
        </p>
      </div>
    </section>
  );
}

export function HostSecrets() {
  const api = useWardenApi();
  const [status, setStatus] = useState<SecretsStatus>();
  const [moving, setMoving] = useState(false);
  const [moved, setMoved] = useState<SecretsMoved>();
  const [failure, setFailure] = useState<{ what: string; error: ContractError }>();

  const load = useCallback(
    () =>
      api['secrets.status']({}).then(setStatus, (e: unknown) =>
        setFailure({ what: 'Could not read the secret files', error: toContractError(e) }),
      ),
    [api],
  );
  useEffect(() => void load(), [load]);

  const move = (differing: 'keep' | 'app' | 'file') => {
    setMoving(true);
    setFailure(undefined);
    void api['secrets.moveIn']({ differing })
      .then(setMoved, (e: unknown) =>
        setFailure({ what: 'Could not move them all', error: toContractError(e) }),
      )
      .then(load)
      .finally(() => setMoving(false));
  };

  if (status && status.encrypted === false) return <NoKeychain store={status.store} />;
  const outside = status?.unencrypted;
  if (!outside && !moved && !failure) return null;
  const names = outside?.names ?? [];
  const differing = outside?.differing ?? [];
  return (
    <section className="host-secrets" aria-labelledby="host-secrets-heading" data-host-secrets>
      <h3 id="host-secrets-heading">Secrets outside the keychain</h3>
      {outside && names.length > 0 && (
        <div className="notice notice-warn" data-unencrypted={names.length}>
          <p>
            {values(names.length)} set while the app was closed (by <code>warden serve</code> or the
            command line) {names.length === 1 ? 'is' : 'are'} kept unencrypted in{' '}
            <code className="secret-file">
              <Untrusted text={outside.file} />
            </code>
            . The app reads only the OS keychain, not this file.
          </p>
          <Names names={names} />
          <p className="hint">
            Once moved, Warden without the app cannot read {them(names.length)}: it asks you to
            start the app.
          </p>
          <div className="actions">
            <button
              type="button"
              className="primary"
              disabled={moving}
              onClick={() => move('keep')}
            >
              {moving ? 'Moving…' : 'Move into the keychain'}
            </button>
          </div>
        </div>
      )}
      {outside && differing.length > 0 && (
        <div className="notice notice-warn" data-differing={differing.length}>
          <p>
            {values(differing.length)} in{' '}
            <code className="secret-file">
              <Untrusted text={outside.file} />
            </code>{' '}
            {differing.length === 1 ? 'is' : 'are'} in the keychain too, with another value, which
            the app uses:
          </p>
          <Names names={differing} />
          <p className="hint">Either way the unencrypted copy leaves the file.</p>
          <div className="actions">
            <button type="button" disabled={moving} onClick={() => move('app')}>
              Keep the app’s {differing.length === 1 ? 'value' : 'values'}
            </button>
            <button type="button" disabled={moving} onClick={() => move('file')}>
              Use the file’s {differing.length === 1 ? 'value' : 'values'}
            </button>
          </div>
        </div>
      )}
      {moved && (
        <p className="notice" role="status" data-moved={moved.moved.length}>
          {moved.moved.length > 0
            ? `The file no longer holds ${values(moved.moved.length)}: the app keeps ${them(moved.moved.length)} in the OS keychain.`
            : 'Nothing was moved.'}
        </p>
      )}
      {failure && (
        <p className="notice notice-error" role="alert">
          {failure.what}: {showUntrusted(`${failure.error.message} ${failure.error.remedy ?? ''}`)}
        </p>
      )}
    </section>
  );
}
