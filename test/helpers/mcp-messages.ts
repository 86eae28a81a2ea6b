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
