/**
 * The contract operations of the clients capability (`clients.*`), over one ClientsContext.
 * Each answers a Result whose error is a ContractError, as the contract router expects.
 */
import type { z } from 'zod';
import type { clientCommands, clientQueries } from '../../app/contract/clients';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, ok } from '../../app/result';
import { clientsStatus } from './client-status';
import type { ClientsContext } from './clients-context';
import { connectClient, disconnectClient, previewConnect } from './connect-service';
import { applyImport, previewImport } from './import-service';
import { revokeClientTokens } from './token-rotation';

type ClientOps = typeof clientCommands & typeof clientQueries;

export type ClientsHandlers = {
  [N in keyof ClientOps]: (
    input: z.output<ClientOps[N]['input']>,
  ) => Promise<Result<z.output<ClientOps[N]['output']>, ContractError>>;
};

/** The handlers of every `clients.*` operation. */
export function createClientsHandlers(ctx: ClientsContext): ClientsHandlers {
  return {
    'clients.list': async () => ok(await clientsStatus(ctx)),
    'clients.importPreview': (input) => previewImport(ctx, input),
    'clients.import': (input) => applyImport(ctx, input),
    'clients.connectPreview': (input) => previewConnect(ctx, input),
    'clients.connect': (input) => connectClient(ctx, input),
    'clients.disconnect': (input) => disconnectClient(ctx, input),
    'clients.revokeToken': (input) => revokeClientTokens(ctx, input),
  };
}
