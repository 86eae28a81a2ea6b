/** Running and recently ended server instances, one per client session. */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { InstanceView } from '../../../../app/contract/instances';
import type { Result } from '../../../../app/result';
import type { Root } from '../root-store';
import { attempt, quietly } from '../servers/servers-slice';

export interface InstancesSlice {
  instances: InstanceView[];
  loadInstances: () => Promise<void>;
  instancesChanged: (list: InstanceView[]) => void;
  stopInstance: (id: string) => Promise<Result<boolean, ContractError>>;
  /** A new process for the same session, e.g. to apply a newer policy revision. */
  restartInstance: (id: string) => Promise<Result<boolean, ContractError>>;
  /** Starts an instance Warden holds itself: shows it runs sandboxed and lists its tools. */
  startServer: (server: string) => Promise<Result<InstanceView, ContractError>>;
  /** Stops every live instance of a server. */
  stopServerInstances: (server: string) => Promise<Result<number, ContractError>>;
}

const live = (i: InstanceView) =>
  i.state.kind === 'running' || i.state.kind === 'starting' || i.state.kind === 'stopping';

export const createInstancesSlice =
  (api: WardenApi): StateCreator<Root, [], [], InstancesSlice> =>
  (set, get) => ({
    instances: [],
    loadInstances: () => quietly(async () => set({ instances: await api['instances.list']({}) })),
    instancesChanged: (instances) => set({ instances }),
    stopInstance: (id) => attempt(async () => (await api['instances.stop']({ id })).stopped),
    restartInstance: (id) =>
      attempt(async () => (await api['instances.restart']({ id })).restarted),
    startServer: (server) => attempt(() => api['instances.start']({ name: server })),
    stopServerInstances: (server) => {
      const ids = get()
        .instances.filter((i) => i.server === server && live(i))
        .map((i) => i.id);
      return attempt(async () => {
        const done = await Promise.all(ids.map((id) => api['instances.stop']({ id })));
        return done.filter((d) => d.stopped).length;
      });
    },
  });
