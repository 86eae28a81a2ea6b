/**
 * Says in red when another program holds the MCP gateway's port: who holds it, which clients'
 * tokens were revoked because it may have received them, and what to do.
 */
import { hostSelectors } from '../store/host/host-slice';
import { useRoot } from '../store/store-context';
import { gatewayBannerText } from './gateway-banner-text';

export function GatewayBanner() {
  const status = useRoot(hostSelectors.gateway);
  const lines = gatewayBannerText(status);
  if (lines.length === 0) return null;
  return (
    <div className="notice notice-error banner" role="alert" data-gateway={status.kind}>
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  );
}
