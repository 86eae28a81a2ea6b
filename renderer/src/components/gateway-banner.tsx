/**
 * Says in red when another program holds the MCP gateway's port: who holds it, which clients'
 * tokens were revoked because it may have received them, and what to do.
 */
import type { GatewayStatus } from '../../../app/contract/gateway';
import { hostSelectors } from '../store/host/host-slice';
import { useRoot } from '../store/store-context';
import { Untrusted } from './untrusted';

/** The banner for a status; nothing unless the port is taken. */
export function GatewayStatusBanner(props: { status: GatewayStatus }) {
  const { status } = props;
  if (status.kind !== 'port-taken') return null;
  return (
    <div className="notice notice-error banner" role="alert" data-gateway="port-taken">
      <p>
        The MCP gateway is not running: its port 127.0.0.1:{status.port} is held by{' '}
        <Untrusted text={status.owner} />, not by Warden. AI clients pointed at it would send their
        requests and tokens to that program.
      </p>
      {status.revoked.length > 0 && (
        <p>
          Revoked the gateway tokens of <Untrusted text={status.revoked.join(', ')} />; each gets a
          new one once Warden holds its port again.
        </p>
      )}
      <p>To fix: {status.remedy}.</p>
    </div>
  );
}

export function GatewayBanner() {
  const status = useRoot(hostSelectors.gateway);
  return <GatewayStatusBanner status={status} />;
}
