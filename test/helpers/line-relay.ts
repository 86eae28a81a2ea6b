/**
 * A relay between two line transports as a session wires it (sizes and turn ends read from the
 * transports), attached and started; the tests hold the transports' other ends.
 */
import { PassThrough } from 'node:stream';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { LineTransport } from '../../main/gateway/line-transport';
import { Relay, type RelayOptions, type ToolGate } from '../../main/gateway/relay';

/** Builds, attaches and starts the relay between `client` and `upstream`. */
export function lineRelay(
  client: LineTransport,
  upstream: LineTransport,
  gate: ToolGate,
  audit: (event: AuditEventInput) => void,
  more: Partial<RelayOptions> = {},
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
    ...more,
  });
  relay.attach();
  void client.start();
  void upstream.start();
  return relay;
}

/**
 * A relay between line transports over in-memory pipes: the test writes lines as the client or
 * the server (each then given a turn to be handled) and reads what each side was written.
 */
export function wiredRelay(
  gate: ToolGate,
  audit: (event: AuditEventInput) => void,
  options: { maxServerBytes?: number; relay?: Partial<RelayOptions> } = {},
) {
  const [clientIn, clientOut, serverIn, serverOut] = [0, 1, 2, 3].map(() => new PassThrough());
  const client = new LineTransport(clientIn!, clientOut!);
  const upstream = new LineTransport(serverOut!, serverIn!, options.maxServerBytes);
  const toClient: string[] = [];
  const toServer: string[] = [];
  clientOut!.on('data', (b: Buffer) => toClient.push(b.toString('utf8')));
  serverIn!.on('data', (b: Buffer) => toServer.push(b.toString('utf8')));
  const relay = lineRelay(client, upstream, gate, audit, options.relay);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    relay,
    client,
    upstream,
    settle,
    fromClient: async (line: string) => {
      clientIn!.write(`${line}\n`);
      await settle();
    },
    fromServer: async (line: string) => {
      serverOut!.write(`${line}\n`);
      await settle();
    },
    toClient: () => toClient.join(''),
    toServer: () => toServer.join(''),
  };
}
