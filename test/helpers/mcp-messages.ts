/** The JSON-RPC messages that open an MCP session, for tests and benchmarks that speak it raw. */

/** An `initialize` request from a client named `client`. */
export function initializeRequest(client: string, { id = 1, version = '1' } = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: client, version },
    },
  };
}

/** The notification a client sends once `initialize` is answered. */
export const initializedNotification = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** A call that takes server-everything about a second to answer (id 2). */
export const slowEverythingCall = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } },
};

/** Messages as a stdio client sends them: one JSON line each. */
export const jsonLines = (...messages: unknown[]) =>
  messages.map((m) => `${JSON.stringify(m)}\n`).join('');
