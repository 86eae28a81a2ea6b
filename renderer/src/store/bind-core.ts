/**
 * Subscribes the store to the core once: events and connection changes are each folded with a
 * single `set` (live audit rows once per frame). After every (re)connection everything is fetched
 * again, since events sent while disconnected were missed.
 */
import type { CoreConnection } from '../contract-client/core-connection';
import type { RootStore } from './root-store';

/** Wires `connection` into `store`; returns a function that undoes it. */
export function bindCore(store: RootStore, connection: CoreConnection): () => void {
  const { api } = connection;
  const s = () => store.getState();
  const reload = () => {
    void s().loadServers();
    void s().loadInstances();
    void s().loadInbox();
    void s().loadDrift();
    void s().loadListings();
    void s().loadDoctor();
    void s().loadConfigProblems();
    void s().loadGatewayStatus();
    void s().setAuditFilter(s().auditFilter);
    void s().loadActivity();
    void s().loadParentPolicy();
  };
  const offs = [
    api.on('servers.changed', (list) => s().serversChanged(list)),
    api.on('instances.changed', (list) => s().instancesChanged(list)),
    api.on('grants.changed', (list) => s().grantsChanged(list)),
    api.on('approvals.changed', (list) => s().approvalsChanged(list)),
    api.on('folders.changed', (list) => s().foldersChanged(list)),
    api.on('drift.changed', (list) => s().driftChanged(list)),
    api.on('tools.listingsChanged', (list) => s().listingsChanged(list)),
    api.on('config.problem', (problem) => s().configProblemAdded(problem)),
    api.on('policy.changed', (view) => s().parentPolicyChanged(view)),
    api.on('audit.batch', (rows) => {
      s().auditBatch(rows);
      s().activityBatch(rows);
    }),
    connection.onStatus((status) => {
      s().setConnection(status);
      if (status.kind === 'open') reload();
    }),
  ];
  s().setConnection(connection.status);
  if (connection.status.kind === 'open') reload();
  return () => offs.forEach((off) => off());
}
