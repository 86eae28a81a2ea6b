/**
 * A relay between two line transports as a session wires it (sizes and turn ends read from the
 * transports), attached and started; the tests hold the transports' other ends.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { LineTransport } from '../../main/gateway/line-transport';
import { Relay, type ToolGate } from '../../main/gateway/relay';

/** Builds, attaches and starts the relay between `client` and `upstream`. */
export function lineRelay(
  client: LineTransport,
  upstream: LineTransport,
  gate: ToolGate,
  audit: (event: AuditEventInput) => void,
): Relay {
  const from = (side: 'client' | 'upstream') => (side === 'client' ? client : upstream);
  const relay = new Relay({
    server: 's',
    instance: 's#1',
    client,
    upstream,
    gate,
    audit,
    redact: (v) => v,
    sizeOf: (_m, side) => from(side).lastMessageBytes,
    endsTurn: (side) => from(side).lastInChunk,
  });
  relay.attach();
  void client.start();
  void upstream.start();
  return relay;
}
