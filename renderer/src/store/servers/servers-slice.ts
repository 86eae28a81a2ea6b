/** The servers the core knows, and the commands that change them. */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import { type ContractError, contractErrorOf } from '../../../../app/contract/contract-error';
import type {
  AddServerInput,
  ServerView,
  SetSecretInput,
  UpdateServerInput,
} from '../../../../app/contract/servers';
import { type Result, err, ok } from '../../../../app/result';
import type { Root } from '../root-store';

export interface ServersSlice {
  servers: ServerView[];
  /** True once the list came from the core at least once. */
  serversLoaded: boolean;
  /** Why the list could not be loaded, if it could not. */
  serversError: ContractError | undefined;
  loadServers: () => Promise<void>;
  addServer: (input: AddServerInput) => Promise<Result<ServerView, ContractError>>;
  acknowledgeServer: (name: string) => Promise<Result<ServerView, ContractError>>;
  updateServer: (input: UpdateServerInput) => Promise<Result<ServerView, ContractError>>;
  removeServer: (name: string) => Promise<Result<boolean, ContractError>>;
  /** Stores a secret value in the keychain for one variable; the value never comes back. */
  setSecret: (input: SetSecretInput) => Promise<Result<ServerView, ContractError>>;
  /** Folds a `servers.changed` event: the core sends the whole list. */
  serversChanged: (list: ServerView[]) => void;
}

/** Replaces or appends one server view by name. */
export function upsertServer(list: readonly ServerView[], view: ServerView): ServerView[] {
  const at = list.findIndex((v) => v.server.name === view.server.name);
  if (at < 0) return [...list, view];
  const next = [...list];
  next[at] = view;
  return next;
}

/** Turns whatever a contract call threw into a ContractError value. */
export function toContractError(error: unknown): ContractError {
  const carried = contractErrorOf(error);
  if (carried) return carried;
  return {
    kind: 'internal',
    message: error instanceof Error ? error.message : String(error),
    remedy: 'Retry; if it keeps failing, check the terminal running Warden.',
  };
}

/** Runs one contract call and answers its value, or the ContractError it failed with. */
export async function attempt<T>(run: () => Promise<T>): Promise<Result<T, ContractError>> {
  try {
    return ok(await run());
  } catch (error) {
    return err(toContractError(error));
  }
}

/** Loads something from the core; on failure the state stays as it was (the banner says why). */
export async function quietly(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch {
    /* kept as it was; the connection banner says why */
  }
}

export const createServersSlice =
  (api: WardenApi): StateCreator<Root, [], [], ServersSlice> =>
  (set) => {
    const command = (run: () => Promise<ServerView>) =>
      attempt(async () => {
        const view = await run();
        set((s) => ({ servers: upsertServer(s.servers, view) }));
        return view;
      });
    return {
      servers: [],
      serversLoaded: false,
      serversError: undefined,
      loadServers: async () => {
        try {
          const list = await api['servers.list']({});
          set({ servers: list, serversLoaded: true, serversError: undefined });
        } catch (error) {
          set({ serversError: toContractError(error) });
        }
      },
      addServer: (input) => command(() => api['servers.add'](input)),
      acknowledgeServer: (name) => command(() => api['servers.acknowledge']({ name })),
      updateServer: (input) => command(() => api['servers.update'](input)),
      setSecret: (input) => command(() => api['servers.setSecret'](input)),
      removeServer: (name) =>
        attempt(async () => {
          const { removed } = await api['servers.remove']({ name });
          if (removed) set((s) => ({ servers: s.servers.filter((v) => v.server.name !== name) }));
          return removed;
        }),
      serversChanged: (list) =>
        set({ servers: list, serversLoaded: true, serversError: undefined }),
    };
  };
