/**
 * The composition root: builds the whole core from paths and options, so that the Electron main
 * process, `warden serve`, `warden connect` and the tests all start the same thing.
 */
import { join } from 'node:path';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { EventName, EventPayload } from '../../app/contract/contract';
import type { DoctorReport } from '../../app/contract/doctor';
import type { AuditStore } from '../audit/audit-store';
import { WRITER_THREAD_DIR, WRITER_THREAD_FILE } from '../audit/writer-thread-client';
import { findBuiltDir } from '../sandbox/built-output';
import { ConfigStore } from '../config/config-store';
import { checkAgainstLayers, retentionToApply } from '../config/guard-layers';
import { watchConfigFile } from '../config/config-watch';
import { grantDecidedAudit, grantRequestedAudit } from '../egress/egress-audit';
import { GrantInbox } from '../egress/grant-inbox';
import { persistRuleTo } from '../egress/persist-rule';
import { ApprovalInbox } from '../gateway/approval-inbox';
import { DriftRegistry } from '../gateway/tool-drift';
import { ToolListings } from '../gateway/tool-listings';
import { callLayers } from '../gateway/call-layers';
import type { FolderInbox } from '../gateway/roots-inbox';
import { createRootsMediation } from '../gateway/roots-wiring';
import type { Autostart } from '../autostart/login-item';
import type { SandboxBackend } from '../sandbox/backend';
import type { InstanceLauncher } from '../supervisor/launcher';
import { Supervisor } from '../supervisor/supervisor';
import type { GatewayStatus } from '../../app/contract/gateway';
import type { Reply } from '../../app/contract/reply';
import { coreAudit } from './core-audit';
import { coreLauncher } from './core-launcher';
import { hostReportOf } from './host-report';
import { sweepInstanceFolders } from './instance-folder';
import { instanceGate } from './instance-gate';
import { instancesDirOf } from './instances-dir';
import { knownSecretsOf } from './known-secrets';
import { guardProcess } from './process-guard';
import { SecretCache } from './secret-cache';
import { headlessSecretStore } from '../secrets/headless-secret-store';
import type { SecretStore } from '../secrets/secret-store';
import { followServerChange } from './server-changes';
import { serverView } from './server-views';
import { noTelemetry, telemetryControl } from '../telemetry/telemetry';
import { auditSettingsView, takeSettingsEdit } from './settings-edits';

/** How long a session's own core waits before it sweeps killed sessions' private folders. */
export const SESSION_SWEEP_DELAY_MS = 5000;

export interface CoreOptions {
  wardenHome: string;
  /** The sandbox backend; defaults to the one for this platform. */
  backend?: SandboxBackend;
  /** How instances are started; defaults to the sandbox launcher over `backend`. */
  launcher?: InstanceLauncher;
  /** Largest JSON-RPC message relayed, in bytes. */
  maxMessageBytes?: number;
  hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Where secret values live; defaults to the headless file store in `wardenHome`. */
  secretStore?: SecretStore;
  /** Where an unexpected error is logged (default: stderr). */
  log?: (line: string) => void;
  /**
   * Probe the host before returning (default). `false` for a core that relays one session: its
   * host report is probed in the background when first asked for.
   */
  probeHost?: boolean;
  /**
   * Export the audit log where config.json says (default). `false` for a core of a command that
   * only makes one change: its rows are in the log, and exiting never waits on a collector.
   */
  exportTelemetry?: boolean;
  /**
   * Open the audit database only when `openAudit` is called (events meanwhile are queued), for
   * a core that relays one session and opens it once its server is spawned.
   */
  deferAudit?: boolean;
  /** Shows an OAuth sign-in page; the system browser (with the address on stderr) by default. */
  openExternal?: (url: URL) => Promise<void>;
  /** This core's login item (the app's, or `warden serve`'s); absent: none can be set. */
  autostart?: Autostart;
}

export type CoreListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface Core {
  readonly wardenHome: string;
  readonly config: ConfigStore;
  readonly backend: SandboxBackend;
  readonly audit: AuditStore;
  readonly supervisor: Supervisor;
  readonly grants: GrantInbox;
  readonly approvals: ApprovalInbox;
  /** Client folders outside a policy, waiting for a decision (roots mediation). */
  readonly folders: FolderInbox;
  /** Validates and runs one contract operation; never throws. */
  handle(op: unknown, input: unknown): Promise<Reply>;
  /** Subscribes to every core event; returns the unsubscribe function. */
  subscribe(listener: CoreListener): () => void;
  /** The host report, probed at start and refreshed by `host.doctor`. */
  hostReport(): DoctorReport;
  /** Whether the MCP gateway holds its port, as the UI shows it (set by whoever starts it). */
  readonly gateway: { status(): GatewayStatus; setStatus(status: GatewayStatus): void };
  /** Opens the audit database if its open was deferred; rejects when it cannot be opened. */
  openAudit(): Promise<void>;
  /** Stops every instance, then flushes and closes the stores. */
  close(): Promise<void>;
}

/**
 * Builds and opens the core. Throws only when the state folder may not be this user's alone
 * (StateFolderRefused, from opening the config first, before anything is written there) or when
 * the audit database cannot be opened (with `deferAudit`, `openAudit` rejects instead).
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  const hostEnv = options.hostEnv ?? process.env;
  const config: ConfigStore = await ConfigStore.open({
    wardenHome: options.wardenHome,
    checkPolicy: (policy) => checkAgainstLayers(policy, () => config.guards()),
  });
  const backend =
    options.backend ??
    // Loaded only here: a core that goes on with a session takes the backend its launch used,
    // and does not load every platform's sandbox code a second time beside its server.
    (await import('../sandbox/select-backend')).selectBackend(process.platform, {
      wardenHome: options.wardenHome,
    });
  const listeners = new Set<CoreListener>();
  const publish: CoreListener = (event, payload) => {
    for (const listener of listeners) listener(event, payload);
  };
  // A core that only relays sessions does not probe the host before its first launch (the
  // launch uses the recent facts it needs); its report is probed when first asked for.
  const host = hostReportOf(
    backend,
    options.probeHost === false ? undefined : await backend.probe(),
  );
  const hostReport = host.get;

  const secretStore = options.secretStore ?? headlessSecretStore(options.wardenHome);
  const secrets = new SecretCache(secretStore);
  const known = knownSecretsOf(config, secrets, hostEnv);
  // Batches are hashed and written on the writer thread, off the thread that relays calls.
  const writerDir = await findBuiltDir(WRITER_THREAD_DIR, WRITER_THREAD_FILE);
  const log = await coreAudit({
    wardenHome: options.wardenHome,
    secretsFor: known.all,
    // The managed layer's minimum wins over the user's setting, even one edited by hand.
    retention: () => retentionToApply(config.auditSettings().retention),
    defer: options.deferAudit === true,
    ...(writerDir ? { writerThread: join(writerDir, WRITER_THREAD_FILE) } : {}),
  });
  const audit = log.store;
  const record = (event: AuditEventInput) => audit.append(event);
  const instancesDir = instancesDirOf(options.wardenHome);
  audit.subscribe(
    (rows) => publish('audit.batch', rows),
    () => listeners.size > 0,
  );
  // Off unless configured; its modules load only then, after the log is open.
  const telemetry =
    options.exportTelemetry === false
      ? noTelemetry
      : telemetryControl(
          (ref) => secretStore.get(ref),
          audit,
          options.log ?? ((line) => console.error(line)),
        );
  telemetry.apply(config.telemetry());
  // config.json edited by hand: the settings that are no server's are recorded and applied.
  config.onSettingsReloaded((change) => {
    void takeSettingsEdit(change, {
      record,
      flush: () => audit.flush(),
      telemetry,
      applyRetention: () => log.runRetention(),
    }).catch((e: unknown) => console.error('warden: config.json settings changed:', e));
    // A window showing the global part shows the new one (and refuses a save over it).
    if (change.section === 'guards' && listeners.size > 0)
      void import('./policy-handlers')
        .then(async (m) => publish('policy.changed', await m.policyView(config)))
        .catch((e: unknown) => console.error('warden: the policy changed:', e));
    if (change.section === 'audit' && listeners.size > 0)
      publish('audit.settingsChanged', auditSettingsView(config));
  });
  const unguard = guardProcess({
    record,
    log: options.log ?? ((line) => console.error(line)),
  });

  const approvals = new ApprovalInbox(record, async (server, pattern) => {
    const saved = await config.updateServer(server, (s) => ({
      policy: {
        ...s.policy,
        tools: {
          ...s.policy.tools,
          allowedCalls: [...(s.policy.tools.allowedCalls ?? []), pattern],
        },
      },
    }));
    if (!saved.ok) throw new Error(saved.error.message);
  });
  const layersNow = callLayers(() => config.readGuards());
  const drift = new DriftRegistry();
  const listings = new ToolListings();
  const grants = new GrantInbox({
    persistRule: persistRuleTo(config),
  });
  const folders = createRootsMediation({
    config,
    audit: record,
    wardenHome: options.wardenHome,
    home: hostEnv.HOME,
  });

  const supervisor: Supervisor = new Supervisor({
    getServer: (name) => config.readServer(name),
    launcher: coreLauncher({
      wardenHome: options.wardenHome,
      config,
      backend,
      hostEnv,
      grants,
      audit: record,
      secrets,
      secretStore,
      launcher: options.launcher,
      maxMessageBytes: options.maxMessageBytes,
    }),
    instancesDir,
    audit: record,
    redact: known.redactFor,
    maxMessageBytes: options.maxMessageBytes,
    onInstancesChanged: (list) => {
      approvals.keepInstances(list.map((i) => i.id));
      publish('instances.changed', list);
    },
    roots: folders.factory,
    gate: instanceGate({
      config,
      sessionFolders: (instance) => supervisor.get(instance)?.sessionGrantedFolders() ?? [],
      known,
      drift,
      listings,
      approvals,
      audit: record,
      layers: layersNow,
      hostEnv,
    }),
  });

  config.onChange(
    followServerChange({
      supervisor,
      record,
      publishServers: () => {
        if (listeners.size > 0) {
          publish(
            'servers.changed',
            config.listServers().map((s) => serverView(s, hostReport())),
          );
        }
      },
    }),
  );
  // Drift refuses calls, so it follows the pins as stored, whoever changed them.
  config.onChange(({ name, after }) => {
    drift.followPins(name, after?.policy.tools.pinned);
    listings.followPins(name, after?.policy.tools.pinned);
  });
  config.onProblem((problem) => publish('config.problem', problem));
  const unwatchConfig = watchConfigFile(config, (e) =>
    console.error('warden: watching config.json:', e),
  );
  // An edit made while no Warden followed the file is recorded now, by one of the cores opening.
  void config
    .announceOfflineEdit()
    .catch((e: unknown) => console.error('warden: config.json edited meanwhile:', e));
  approvals.onChange((list) => publish('approvals.changed', list));
  folders.inbox.onChange((list) => publish('folders.changed', list));
  drift.onChange(() => publish('drift.changed', drift.list()));
  listings.onChange(() => publish('tools.listingsChanged', listings.list()));
  grants.onPending((g) => {
    record(grantRequestedAudit(g));
    publish('grants.changed', grants.pending());
  });
  grants.onDecided((e) => {
    record(grantDecidedAudit(e));
    publish('grants.changed', grants.pending());
  });

  let gatewayStatus: GatewayStatus = { kind: 'off' };
  // The contract operations load on their first call: a session-only core never needs them.
  let router: Promise<(op: unknown, input: unknown) => Promise<Reply>> | undefined;
  const routerDeps = {
    wardenHome: options.wardenHome,
    config,
    backend,
    audit,
    secrets,
    secretStore,
    supervisor,
    approvals,
    grants,
    folders: folders.inbox,
    drift,
    listings,
    report: () => hostReport(),
    setReport: host.set,
    applyRetention: () => log.runRetention(),
    publish,
    gatewayStatus: () => gatewayStatus,
    openExternal: options.openExternal,
    autostart: options.autostart,
    telemetry,
  };
  const handle = async (op: unknown, input: unknown): Promise<Reply> => {
    try {
      router ??= import('./core-router').then((m) => m.createCoreRouter(routerDeps));
      return await (
        await router
      )(op, input);
    } catch (error) {
      return { ok: false, error: { kind: 'internal', message: (error as Error).message } };
    }
  };

  // The private folders of sessions killed outright. A session's own core sweeps a few seconds
  // in, so that the sweep never competes with its server's start.
  const sweep = setTimeout(
    () => void sweepInstanceFolders(instancesDir),
    options.deferAudit === true ? SESSION_SWEEP_DELAY_MS : 0,
  );
  sweep.unref();

  let closing: Promise<void> | undefined;
  return {
    wardenHome: options.wardenHome,
    config,
    backend,
    audit,
    supervisor,
    grants,
    approvals,
    folders: folders.inbox,
    handle,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hostReport,
    openAudit: () => log.open(),
    gateway: {
      status: () => gatewayStatus,
      setStatus: (status) => {
        gatewayStatus = status;
      },
    },
    close: () =>
      (closing ??= (async () => {
        clearTimeout(sweep);
        unwatchConfig();
        log.stop();
        await supervisor.stopAll();
        unguard();
        await config.flush();
        await audit.close();
        await telemetry.stop();
      })()),
  };
}
