/** An MCP client over a running core's local channel, as `warden connect` joins that core. */
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import { LineTransport } from '../../main/gateway/line-transport';
import { localChannelPath } from '../../main/gateway/local-channel';

/** Opens a session of server `name` on the core of `home` (its front doors must be open). */
export async function localClient(
  home: string,
  name: string,
): Promise<{ client: Client; end: () => void }> {
  const socket = connect(localChannelPath(home));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`${JSON.stringify({ server: name, client: 'test' })}\n`);
  const answer = await new Promise<string>((resolve) =>
    socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))),
  );
  expect(answer).toContain('"ok":true');
  const client = new Client({ name: 'local-test', version: '1.0.0' });
  await client.connect(new LineTransport(socket, socket));
  return { client, end: () => socket.destroy() };
}
