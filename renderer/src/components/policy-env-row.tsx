/**
 * One variable set for a server. A secret (kept in the core's secret store) or a value whose name
 * says it is one is never shown back: the field is empty and typing replaces it. A stored secret
 * is replaced at once through the core; a plain value is part of the draft.
 */
import { useId, useState } from 'react';
import type { EnvValue } from '../../../app/policy/policy-schema';
import { looksSecret } from './policy-checks';
import type { SecretPlace } from './use-secret-store';

export function PolicyEnvRow(props: {
  name: string;
  value: EnvValue;
  onReplace: (value: string) => void;
  onReplaceSecret: (value: string) => Promise<string | undefined>;
  onRemove: () => void;
  error?: string;
  /** Where the core keeps secrets, once known. */
  place?: SecretPlace;
}) {
  const id = useId();
  const secret = props.value.kind === 'secret';
  const hidden = secret || looksSecret(props.name);
  const [typed, setTyped] = useState('');
  const [status, setStatus] = useState<{ text: string; error: boolean } | undefined>();
  const replaceSecret = async () => {
    const problem = await props.onReplaceSecret(typed);
    setStatus(
      problem ? { text: problem, error: true } : { text: 'Secret replaced.', error: false },
    );
    if (!problem) setTyped('');
  };
  return (
    <li className="env-row" data-env={props.name}>
      <code>{props.name}</code>
      {secret && (
        <span className="tag">
          {props.place?.encrypted === false
            ? 'secret, kept unencrypted, value hidden'
            : props.place?.encrypted
              ? 'keychain secret, value hidden'
              : 'secret, value hidden'}
        </span>
      )}
      <label htmlFor={`${id}-v`} className="visually-hidden">
        {hidden ? `New value for ${props.name}` : `Value of ${props.name}`}
      </label>
      <input
        id={`${id}-v`}
        type={hidden ? 'password' : 'text'}
        value={hidden ? typed : props.value.kind === 'plain' ? props.value.value : ''}
        placeholder={hidden ? 'hidden; type to replace' : undefined}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => {
          if (hidden) setTyped(e.target.value);
          if (!secret) props.onReplace(e.target.value);
        }}
      />
      {secret && (
        <button type="button" disabled={typed === ''} onClick={() => void replaceSecret()}>
          Replace secret<span className="visually-hidden"> {props.name}</span>
        </button>
      )}
      <button type="button" onClick={props.onRemove} aria-label={`Remove variable ${props.name}`}>
        Remove
      </button>
      {status && (
        <p
          className={status.error ? 'field-error' : 'status'}
          role={status.error ? 'alert' : 'status'}
        >
          {status.text}
        </p>
      )}
      {props.error && <p className="field-error">{props.error}</p>}
    </li>
  );
}
