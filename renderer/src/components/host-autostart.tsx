/**
 * Host status: whether Warden starts at login. A Warden already running when AI clients start
 * lets each `warden connect` join it instead of starting one of its own, so servers answer sooner.
 * The core owns the entry and says what it starts and where it lives; the UI only turns it on or
 * off. A login entry of the same name that starts something else is shown (its command escaped)
 * before the switch replaces it.
 */
import { Fragment, useEffect, useState } from 'react';
import type { AutostartState } from '../../../app/contract/autostart';
import type { ContractError } from '../../../app/contract/contract-error';
import { toContractError } from '../store/servers/servers-slice';
import { useWardenApi } from '../store/store-context';
import { SwitchButton } from './switch-button';
import { Untrusted } from './untrusted';
import { showUntrusted } from '../../../app/text/untrusted-text';

/** The core's text, with its `backtick` spans (commands) shown as code. */
function WithCode(props: { text: string }) {
  return (
    <>
      {props.text.split('`').map((part, i) => (
        <Fragment key={i}>{i % 2 === 1 ? <code>{part}</code> : part}</Fragment>
      ))}
    </>
  );
}

/** Where the entry lives: a file's path as code, a system setting as words. */
function Where(props: { where: string }) {
  const path = props.where.startsWith('/') || /^[A-Za-z]:\\/.test(props.where);
  return path ? (
    <code className="autostart-path">
      <Untrusted text={props.where} />
    </code>
  ) : (
    <>{props.where}</>
  );
}

interface Failure {
  /** What failed, before the error's own message. */
  what: string;
  error: ContractError;
}

export function HostAutostart() {
  const api = useWardenApi();
  const [state, setState] = useState<AutostartState>();
  const [changing, setChanging] = useState(false);
  const [failure, setFailure] = useState<Failure>();

  useEffect(() => {
    let live = true;
    api['autostart.get']({}).then(
      (s) => live && setState(s),
      (e: unknown) =>
        live && setFailure({ what: 'Could not read the login item', error: toContractError(e) }),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const change = (enabled: boolean) => {
    setChanging(true);
    setFailure(undefined);
    void api['autostart.set']({ enabled })
      .then(setState, (e: unknown) =>
        setFailure({
          what: enabled ? 'Could not turn on start at login' : 'Could not turn off start at login',
          error: toContractError(e),
        }),
      )
      .finally(() => setChanging(false));
  };

  return (
    <section
      className="autostart"
      aria-labelledby="autostart-heading"
      data-autostart={state ? (state.enabled ? 'on' : 'off') : 'unknown'}
    >
      <h3 id="autostart-heading">Start at login</h3>
      <p className="hint">
        With Warden running from login, AI clients that start later join it instead of each starting
        a Warden of their own, so their servers answer sooner.
      </p>
      {state && (
        <>
          <div className="autostart-switch">
            <SwitchButton
              checked={state.enabled}
              label="Start Warden at login"
              onChange={change}
              disabled={changing || !state.available}
            />
            {changing && <span className="muted">Saving…</span>}
          </div>
          {!state.available && (
            <p className="notice notice-warn" data-autostart-unavailable>
              Not available here: <WithCode text={state.reason ?? 'not supported on this system'} />
            </p>
          )}
          {state.available && (
            <dl className="autostart-facts">
              <dt>Starts</dt>
              <dd>
                <WithCode text={state.target} />
              </dd>
              <dt>Entry</dt>
              <dd>
                <Where where={state.where} />
              </dd>
            </dl>
          )}
          {state.other !== undefined && (
            <div className="notice notice-warn" data-autostart-other>
              <p>A login entry of the same name starts something else:</p>
              <p>
                <code className="autostart-path">
                  <Untrusted text={state.other} />
                </code>
              </p>
              <p>Turning the switch on replaces it with Warden’s entry.</p>
            </div>
          )}
        </>
      )}
      {!state && !failure && <p className="muted">Reading the login item…</p>}
      {failure && (
        <p className="notice notice-error" role="alert">
          {failure.what}: {showUntrusted(`${failure.error.message} ${failure.error.remedy ?? ''}`)}
        </p>
      )}
    </section>
  );
}
