/** One server: name, full command line, isolation, and a warning while it is unacknowledged. */
import { useId, useState } from 'react';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { IsolationBadge } from './isolation-badge';

export function ServerRow(props: { name: string }) {
  const view = useRoot(serversSelectors.byName(props.name));
  const acknowledge = useRoot((s) => s.acknowledgeServer);
  const [error, setError] = useState<string | undefined>();
  const headingId = useId();
  if (!view) return null;
  const { server, commandLine, isolation } = view;

  const onAcknowledge = async () => {
    const result = await acknowledge(server.name);
    setError(result.ok ? undefined : result.error.message);
  };

  return (
    <li className="server" aria-labelledby={headingId} data-server={server.name}>
      <div className="server-head">
        <h3 id={headingId} className="server-name">
          {server.name}
        </h3>
        <IsolationBadge isolation={isolation} />
      </div>
      <p className="command">
        <span className="visually-hidden">Command: </span>
        <code>{commandLine}</code>
      </p>
      {isolation.kind === 'unavailable' && <p className="remedy">To fix: {isolation.remedy}</p>}
      {!server.acknowledged && (
        <div className="notice notice-warn" role="note">
          <p>
            New server, never started. Warden will run exactly the command above
            {isolation.kind === 'off' ? ', without a sandbox, with your full user rights' : ''}.
            Check it before the first start.
          </p>
          <button type="button" onClick={() => void onAcknowledge()}>
            I have checked this command
            <span className="visually-hidden"> for {server.name}</span>
          </button>
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
