/** The sentences of the red banner for a taken gateway port, with untrusted text escaped. */
import type { GatewayStatus } from '../../../app/contract/gateway';
import { showUntrusted } from '../../../app/text/untrusted-text';

/** The banner's paragraphs; none unless another program holds the port. */
export function gatewayBannerText(status: GatewayStatus): string[] {
  if (status.kind !== 'port-taken') return [];
  return [
    `The MCP gateway is not running: its port 127.0.0.1:${status.port} is held by ${showUntrusted(status.owner)}, not by Warden. AI clients pointed at it would send their requests and tokens to that program.`,
    ...(status.revoked.length > 0
      ? [
          `Revoked the gateway tokens of ${showUntrusted(status.revoked.join(', '))}; each gets a new one once Warden holds its port again.`,
        ]
      : []),
    `To fix: ${status.remedy}.`,
  ];
}
