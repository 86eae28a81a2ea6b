/**
 * Subscribes the store to the core once: events and connection changes are each folded with a
 * single `set`. After every (re)connection the list is fetched again, since events sent while
 * disconnected were missed.
 */
import type { CoreConnection } from '../contract-client/core-connection';
import type { RootStore } from './root-store';

/** Wires `connection` into `store`; returns a function that undoes it. */
export function bindCore(store: RootStore, connection: CoreConnection): () => void {
  const { api } = connection;
  const offs = [
    api.on('servers.changed', (list) => store.getState().serversChanged(list)),
    connection.onStatus((status) => {
      store.getState().setConnection(status);
      if (status.kind === 'open') void store.getState().loadServers();
    }),
  ];
  store.getState().setConnection(connection.status);
  if (connection.status.kind === 'open') void store.getState().loadServers();
  return () => offs.forEach((off) => off());
}
