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

/**
 * The handlers of every `clients.*` operation; an input's `workspace` stands for the current
 * folder where project files are looked for (the command line's, through a running core).
 */
export function createClientsHandlers(base: ClientsContext): ClientsHandlers {
  const at = (workspace: string | undefined): ClientsContext =>
    workspace === undefined ? base : { ...base, locations: { ...base.locations, cwd: workspace } };
  return {
    'clients.list': async ({ workspace }) => ok(await clientsStatus(at(workspace))),
    'clients.importPreview': (input) => previewImport(at(input.workspace), input),
    'clients.import': (input) => applyImport(at(input.workspace), input),
    'clients.connectPreview': (input) => previewConnect(at(input.workspace), input),
    'clients.connect': (input) => connectClient(at(input.workspace), input),
    'clients.disconnect': (input) => disconnectClient(at(input.workspace), input),
    'clients.revokeToken': (input) => revokeClientTokens(at(input.workspace), input),
  };
}
