/**
 * The composition root: builds the whole core from paths and options, so that the Electron main
 * process, `warden serve`, `warden connect` and the tests all start the same thing.
 */
import type { ContractError } from '../../app/contract/contract-error';
import type { DoctorReport } from '../../app/contract/doctor';
import type { EventName, EventPayload } from '../../app/contract/contract';
import { err, ok } from '../../app/result';
import { ConfigStore, type ConfigStoreError } from '../config/config-store';
import type { SandboxBackend } from '../sandbox/backend';
import { selectBackend } from '../sandbox/select-backend';
import { type ReplyBody, createContractRouter } from './contract-router';
import { serverView } from './server-views';

export interface CoreOptions {
  wardenHome: string;
  /** The sandbox backend; defaults to the one for this platform. */
  backend?: SandboxBackend;
}

export type CoreListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface Core {
  readonly wardenHome: string;
  readonly config: ConfigStore;
  readonly backend: SandboxBackend;
  /** Validates and runs one contract operation; never throws. */
  handle(op: unknown, input: unknown): Promise<ReplyBody>;
  /** Subscribes to every core event; returns the unsubscribe function. */
  subscribe(listener: CoreListener): () => void;
  /** The host report, probed once and refreshed by `host.doctor`. */
  hostReport(): Promise<DoctorReport>;
  close(): Promise<void>;
}

function storeError(error: ConfigStoreError): ContractError {
  return error.kind === 'invalid-input'
    ? { kind: 'invalid-input', message: error.message, fields: error.fields }
    : { kind: error.kind, message: error.message };
}

/** Builds and opens the core. */
export async function createCore(options: CoreOptions): Promise<Core> {
  const config = await ConfigStore.open({ wardenHome: options.wardenHome });
  const backend = options.backend ?? selectBackend();
  const listeners = new Set<CoreListener>();
  let report = await backend.probe();

  const publish: CoreListener = (event, payload) => {
    for (const listener of listeners) listener(event, payload);
  };
  const views = () => config.listServers().map((s) => serverView(s, report));
  config.onChange(() => publish('servers.changed', views()));

  const viewOf = (name: string) => {
    const server = config.getServer(name);
    return server
      ? ok(serverView(server, report))
      : err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` });
  };

  const handle = createContractRouter({
    'servers.list': () => Promise.resolve(ok(views())),
    'servers.get': ({ name }) => Promise.resolve(viewOf(name)),
    'servers.add': async (input) => {
      const added = await config.addServer(input);
      return added.ok ? ok(serverView(added.value, report)) : err(storeError(added.error));
    },
    'servers.update': async ({ name, launch, policy, expectedRevision }) => {
      const updated = await config.updateServer(
        name,
        () => ({ ...(launch ? { launch } : {}), ...(policy ? { policy } : {}) }),
        expectedRevision,
      );
      return updated.ok ? ok(serverView(updated.value, report)) : err(storeError(updated.error));
    },
    'servers.acknowledge': async ({ name }) => {
      const updated = await config.updateServer(name, () => ({ acknowledged: true }));
      return updated.ok ? ok(serverView(updated.value, report)) : err(storeError(updated.error));
    },
    'servers.remove': async ({ name }) => {
      const removed = await config.removeServer(name);
      return removed.ok ? ok({ removed: true }) : err(storeError(removed.error));
    },
    'config.problems': () => Promise.resolve(ok(config.getProblems())),
    'host.doctor': async () => {
      report = await backend.probe();
      return ok(report);
    },
  });

  return {
    wardenHome: options.wardenHome,
    config,
    backend,
    handle,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hostReport: () => Promise.resolve(report),
    close: () => config.flush(),
  };
}
