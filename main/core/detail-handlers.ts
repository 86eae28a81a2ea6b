/**
 * The server detail operations: how to point an AI client at a server, and "Try it", which calls
 * one tool through the gateway like any client: a new sandboxed instance, the relay's tool gate
 * (disabled tools, approvals, drift) and its audit, under the client name "Warden Try it".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type ClientId, clientFormats, clientIds } from '../../app/clients/client-formats';
import { type WardenCommand, wardenEntry } from '../../app/clients/warden-entry';
import type { ContractError } from '../../app/contract/contract-error';
import { type DetailOperationName, SNIPPET_TOKEN } from '../../app/contract/server-detail';
import { err, ok } from '../../app/result';
import type { ConfigStore } from '../config/config-store';
import type { Supervisor } from '../supervisor/supervisor';
import { shellQuote } from './command-line';
import type { Handlers } from './contract-router';

export interface DetailServices {
  config: ConfigStore;
  supervisor: Supervisor;
  warden: WardenCommand;
  /**
   * The HTTP front door while this core's own gateway holds its port: its origin, and a token
   * for a client (each client gets its own, revoked with those `clients connect` writes).
   */
  gateway: () => { origin: string; tokenFor: (client: ClientId) => Promise<string> } | undefined;
  callTimeoutMs?: number;
}

export const TRY_IT_CLIENT = 'Warden Try it';

const notFound = (name: string) =>
  err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` });

function resultText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c: { type?: unknown; text?: unknown }) =>
      c.type === 'text' && typeof c.text === 'string' ? c.text : `[${String(c.type)} content]`,
    )
    .join('\n');
}

/** Builds the handlers of the detail operations. */
export function createDetailHandlers(s: DetailServices): Pick<Handlers, DetailOperationName> {
  return {
    'servers.connectInfo': ({ name }) => {
      if (!s.config.getServer(name)) return Promise.resolve(notFound(name));
      const gateway = s.gateway();
      const env = Object.entries(s.warden.env).map(([k, v]) => `${k}=${shellQuote(v)} `);
      const commandLine =
        env.join('') +
        [s.warden.command, ...s.warden.args, 'connect', name].map(shellQuote).join(' ');
      const snippets = [];
      for (const client of clientIds) {
        const format = clientFormats[client];
        const transports =
          format.takesUrl && gateway ? (['stdio', 'http'] as const) : (['stdio'] as const);
        for (const transport of transports) {
          const address =
            transport === 'http' && gateway
              ? { origin: gateway.origin, token: SNIPPET_TOKEN }
              : { origin: '', token: '' };
          snippets.push({
            client,
            label: format.label,
            transport,
            json: JSON.stringify(
              {
                [format.serversKey]: {
                  [name]: wardenEntry(client, name, transport, s.warden, address),
                },
              },
              null,
              2,
            ),
          });
        }
      }
      return Promise.resolve(
        ok({
          commandLine,
          ...(gateway
            ? { http: { url: `${gateway.origin}/mcp/${encodeURIComponent(name)}` } }
            : {}),
          snippets,
        }),
      );
    },
    'servers.snippetToken': async ({ client }) => {
      const gateway = s.gateway();
      if (!gateway)
        return err<ContractError>({
          kind: 'conflict',
          message: 'the HTTP front door is not running here',
          remedy: 'Use the stdio command, or start Warden with its gateway.',
        });
      return ok({ token: await gateway.tokenFor(client) });
    },
    'tools.call': async ({ server, tool, arguments: args }) => {
      if (!s.config.getServer(server)) return notFound(server);
      const timeout = s.callTimeoutMs ?? 60_000;
      const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
      await s.supervisor.open(server, sessionSide, TRY_IT_CLIENT);
      const client = new Client({ name: TRY_IT_CLIENT, version: '1' });
      try {
        await client.connect(clientSide, { timeout });
        const result = await client.callTool({ name: tool, arguments: args }, undefined, {
          timeout,
        });
        return ok({ isError: result.isError === true, text: resultText(result.content) });
      } catch (error) {
        return err<ContractError>({
          kind: 'internal',
          message: `the call of ${tool} failed: ${error instanceof Error ? error.message : String(error)}`,
          remedy: "See the server's health and log on this screen.",
        });
      } finally {
        await client.close().catch(() => undefined);
      }
    },
  };
}
