/** An MCP client that declares roots, joined to a server through `warden connect`. */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { processEnv, repoRoot } from '../fixtures';

/** Connects `clientName` to `server` of the Warden on `home`, offering `folder` as its root. */
export async function connectWithRoot(
  home: string,
  server: string,
  folder: string,
  clientName = 'e2e-roots',
): Promise<Client> {
  const client = new Client(
    { name: clientName, version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: pathToFileURL(folder).href, name: 'workspace' }],
  }));
  await client.connect(
    new StdioClientTransport({
      command: join(repoRoot, 'bin', 'warden'),
      args: ['connect', server],
      env: { ...processEnv(), WARDEN_HOME: home, WARDEN_NODE: process.execPath },
      stderr: 'pipe',
    }),
  );
  return client;
}
