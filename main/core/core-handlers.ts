/** The contract's operations, implemented over the core's services. */
import { join } from 'node:path';
import type { ClientOperationName } from '../../app/contract/clients';
import type { OAuthOperationName } from '../../app/contract/oauth';
import { oauthVault } from '../remote/oauth/oauth-vault';
import type { ContractError } from '../../app/contract/contract-error';
import { applyUserPolicy } from '../../app/contract/user-policy';
import { type FieldError, describeFieldErrors } from '../../app/policy/validate';
import type { DetailOperationName } from '../../app/contract/server-detail';
import type { DoctorReport } from '../../app/contract/doctor';
import type { EventName, EventPayload } from '../../app/contract/contract';
import { type Result, err, ok } from '../../app/result';
import { canonicalJson } from '../../app/audit/canonical-json';
import { pinTools, secretRef, setSecretRef, unpinTool } from '../../app/policy/policy-edits';
import type { AuditStore } from '../audit/audit-store';
import type { ConfigStore, ConfigStoreError } from '../config/config-store';
import { checkRetention } from '../config/guard-layers';
import type { GrantInbox } from '../egress/grant-inbox';
import type { ApprovalInbox } from '../gateway/approval-inbox';
import type { FolderInbox } from '../gateway/roots-inbox';
import type { DriftRegistry } from '../gateway/tool-drift';
import type { ToolListings } from '../gateway/tool-listings';
import type { SandboxBackend } from '../sandbox/backend';
import { loadVerifications, verifyIfStale, verifyNow } from '../sandbox/verify/verification-store';
import type { Supervisor } from '../supervisor/supervisor';
import type { Handlers } from './contract-router';
import type { SecretCache } from './secret-cache';
import { withLauncherCachesFor } from '../clients/launcher-caches';
import { createPolicyHandlers } from './policy-handlers';
import { addRemoteServer } from '../remote/add-remote';
import type { Server } from '../../app/policy/policy-schema';
import { serverView } from './server-views';
import { auditSettingsChanged, auditSettingsView, settingChanged } from './settings-edits';

export interface HandlerServices {
  config: ConfigStore;
  backend: SandboxBackend;
  audit: AuditStore;
  secrets: SecretCache;
  supervisor: Supervisor;
  approvals: ApprovalInbox;
  grants: GrantInbox;
  folders: FolderInbox;
  drift: DriftRegistry;
  listings: ToolListings;
  report: () => DoctorReport;
  setReport: (r: DoctorReport) => void;
  /** Applies the audit retention now (after its settings changed). */
  applyRetention: () => void;
  /** Tells every connected UI of a change (a new global part, new audit settings). */
  publish: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
  /** Where verification results are kept. */
  wardenHome: string;
}

/**
 * The host report with the kept verification; a kept one that no longer matches the host
 * (kernel, backend version, AppArmor state) is run again first.
 */
async function reportWithVerification(s: HandlerServices): Promise<DoctorReport> {
  const report = await s.backend.probe();
  const kept = await loadVerifications(s.wardenHome);
  if (!kept.some((v) => v.backend === s.backend.name)) return report;
  const current = await verifyIfStale(s.wardenHome, s.backend, report);
  return { ...report, verifications: current ? [current] : kept };
}

/** A grant decision as the contract answers it: taken, or why not (an unknown grant is not found). */
function decisionReply(
  decided: Result<unknown, { kind: string; message: string; remedy: string }>,
  failedKind: 'internal' | 'policy-forbidden',
): Result<{ decided: boolean }, ContractError> {
  if (decided.ok) return ok({ decided: true });
  const { kind, message, remedy } = decided.error;
  return err({ kind: kind === 'unknown-grant' ? 'not-found' : failedKind, message, remedy });
}

function storeError(error: ConfigStoreError): ContractError {
  if (error.kind === 'invalid-input')
    return { kind: 'invalid-input', message: error.message, fields: error.fields };
  if (error.kind === 'policy-forbidden')
    return { kind: error.kind, message: error.message, rule: error.rule, remedy: error.remedy };
  return { kind: error.kind, message: error.message };
}

const fromStore = <T, U>(r: Result<T, ConfigStoreError>, map: (v: T) => U) =>
  r.ok ? ok(map(r.value)) : err(storeError(r.error));

/** Builds the handler of every operation. */
export function createHandlers(
  s: HandlerServices,
): Omit<
  Handlers,
  | ClientOperationName
  | DetailOperationName
  | OAuthOperationName
  | 'gateway.status'
  | 'autostart.get'
  | 'autostart.set'
  | 'telemetry.set'
  | 'telemetry.off'
  | 'telemetry.get'
  | 'secrets.status'
  | 'secrets.moveIn'
> {
  const view = (server: Parameters<typeof serverView>[0]) => serverView(server, s.report());
  return {
    ...createPolicyHandlers(
      s.config,
      (event) => s.audit.append(event),
      (view) => s.publish('policy.changed', view),
    ),
    'servers.list': () => Promise.resolve(ok(s.config.listServers().map(view))),
    'servers.get': ({ name }) => {
      const server = s.config.getServer(name);
      return Promise.resolve(
        server
          ? ok(view(server))
          : err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` }),
      );
    },
    'servers.add': async (input) => {
      if (input.remote) {
        const added = await addRemoteServer(s.config, s.secrets, {
          ...input,
          remote: input.remote,
        });
        if (!added.ok && added.error.kind === 'internal')
          return err<ContractError>({ kind: 'internal', message: added.error.message });
        return fromStore(added as Result<Server, ConfigStoreError>, view);
      }
      // Launcher caches (npx, uvx, pip) as import grants them; created once the add succeeded.
      const withCaches = withLauncherCachesFor(input);
      const { name, launch, policy } = withCaches.input;
      const added = await s.config.addServer({ name, policy, ...(launch ? { launch } : {}) });
      if (added.ok) await withCaches.createFolders();
      return fromStore(added, view);
    },
    'servers.update': async ({ name, launch, policy, expectedRevision }) => {
      let refused: FieldError[] | undefined;
      const updated = await s.config.updateServer(
        name,
        (srv) => {
          const applied = policy && applyUserPolicy(name, srv.policy, policy);
          if (applied && !applied.ok) refused = applied.error;
          return {
            ...(launch ? { launch } : {}),
            ...(applied?.ok ? { policy: applied.value } : {}),
          };
        },
        expectedRevision,
      );
      if (refused) {
        const message = describeFieldErrors(refused);
        return err<ContractError>({ kind: 'invalid-input', message, fields: refused });
      }
      return fromStore(updated, view);
    },
    'servers.acknowledge': async ({ name }) =>
      fromStore(await s.config.updateServer(name, () => ({ acknowledged: true })), view),
    'servers.setSecret': async ({ name, variable, value }) => {
      const server = s.config.getServer(name);
      if (!server)
        return err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` });
      const ref = secretRef(name, variable);
      const saved = await s.secrets.set(ref, value);
      if (!saved.ok) return err<ContractError>({ kind: 'internal', message: saved.error });
      return fromStore(
        await s.config.updateServer(name, (srv) => ({
          policy: setSecretRef(srv.policy, variable, ref),
        })),
        view,
      );
    },
    'servers.remove': async ({ name }) => {
      await s.supervisor.stopServer(name);
      const removed = await s.config.removeServer(name);
      // A remote server's header values, and its OAuth sign-in, go with it.
      if (removed.ok && removed.value.remote) {
        for (const { ref } of removed.value.remote.headers) await s.secrets.store.delete(ref);
        await oauthVault(s.secrets.store, name, join(s.wardenHome, 'run')).clear();
      }
      return fromStore(removed, () => ({ removed: true }));
    },
    'config.problems': () => Promise.resolve(ok(s.config.getProblems())),
    'host.doctor': async () => {
      s.setReport(await reportWithVerification(s));
      return ok(s.report());
    },
    'host.verify': async () => {
      const report = await s.backend.probe();
      if (!report.backend.available) {
        return err<ContractError>({
          kind: 'isolation-unavailable',
          message: `the ${report.backend.name} sandbox is not available here, so there is nothing to verify`,
          remedy: 'fix what the Host status lists first',
        });
      }
      const result = await verifyNow(s.wardenHome, s.backend, report);
      s.setReport({ ...report, verifications: [result] });
      return ok(result);
    },
    'host.checkRoots': async ({ paths }) =>
      ok(
        await Promise.all(
          paths.map(async (path) => {
            const checked = await s.backend.checkRoot(path);
            return checked.ok
              ? { path, ok: true as const, resolved: checked.value }
              : {
                  path,
                  ok: false as const,
                  message: checked.error.message,
                  remedy: checked.error.remedy,
                };
          }),
        ),
      ),
    'instances.list': () => Promise.resolve(ok(s.supervisor.list())),
    'instances.stop': async ({ id }) => ok({ stopped: await s.supervisor.stop(id) }),
    'instances.restart': async ({ id }) => ok({ restarted: await s.supervisor.restart(id) }),
    'instances.start': async ({ name }) => {
      if (!s.config.getServer(name))
        return err<ContractError>({ kind: 'not-found', message: `no server named "${name}"` });
      return ok((await s.supervisor.startOwned(name)).view());
    },
    'approvals.list': () => Promise.resolve(ok(s.approvals.list())),
    'approvals.decide': async ({ id, decision, pattern }) => {
      const decided = await s.approvals.decide(id, decision, pattern);
      return decided.ok
        ? ok({ decided: decided.value })
        : err<ContractError>({
            kind: decided.error.kind === 'persist-failed' ? 'internal' : 'invalid-input',
            message: decided.error.message,
            remedy: decided.error.remedy,
          });
    },
    'grants.list': () => Promise.resolve(ok(s.grants.pending())),
    'grants.decide': async ({ id, decision }) =>
      decisionReply(await s.grants.decide(id, decision), 'internal'),
    'folders.list': () => Promise.resolve(ok(s.folders.pending())),
    'folders.decide': async ({ id, decision }) =>
      decisionReply(await s.folders.decide(id, decision), 'policy-forbidden'),
    'drift.list': () => Promise.resolve(ok(s.drift.list())),
    'tools.listings': () => Promise.resolve(ok(s.listings.list())),
    'drift.decide': async (input) => {
      const { server, tool } = input;
      const drift = s.drift.get(server, tool);
      if (!drift) return ok({ decided: false });
      if (input.decision === 'keep-blocked') return ok({ decided: true });
      if (canonicalJson(input.reviewed) !== canonicalJson(drift.current))
        return err<ContractError>({
          kind: 'conflict',
          message: 'the server changed this tool again since you reviewed it',
          remedy: 'Review the change it reports now.',
        });
      // What the user saw is pinned: if the server changed it meanwhile, the tool stays hidden
      // against that pin (tool-drift.ts).
      const updated = await s.config.updateServer(server, (srv) => ({
        policy: pinTools(srv.policy, { [tool]: input.reviewed }),
      }));
      return fromStore(updated, () => ({ decided: true }));
    },
    'tools.forget': async ({ server, tool }) => {
      // Written against the revision read, and read again when another change came between (a
      // tool pinned by a listing): the answer says what became of the pin, never a stale one.
      for (let attempt = 0; ; attempt++) {
        const stored = s.config.readServer(server);
        if (!stored)
          return err<ContractError>({ kind: 'not-found', message: `no server named "${server}"` });
        if (!Object.hasOwn(stored.policy.tools.pinned, tool)) return ok({ forgotten: false });
        // Recorded as a policy change of the server (tools.pinned), as every pin is; its drift
        // and its place among the tools left out of listings go with it (core.ts follows pins).
        const updated = await s.config.updateServer(
          server,
          (srv) => ({ policy: unpinTool(srv.policy, tool) }),
          stored.revision,
        );
        if (!updated.ok && updated.error.kind === 'conflict' && attempt < 3) continue;
        return fromStore(updated, () => ({ forgotten: true }));
      }
    },
    'audit.query': async (q) => ok(await s.audit.query(q)),
    'audit.verify': () => Promise.resolve(ok(s.audit.verify())),
    'audit.settings': () => Promise.resolve(ok(auditSettingsView(s.config))),
    'audit.setSettings': async ({ expectedRevision, ...settings }) => {
      const refused = await checkRetention(settings.retention);
      if (refused) return err<ContractError>(refused);
      const before = s.config.auditSettings();
      const saved = await s.config.setAuditSettings(settings, expectedRevision);
      if (!saved.ok) return err(storeError(saved.error));
      // How long the log keeps its rows is recorded in it, as the guards' minimum is.
      const changed = auditSettingsChanged(before, saved.value);
      if (changed.length > 0) s.audit.append(settingChanged(changed));
      s.applyRetention();
      const view = auditSettingsView(s.config);
      s.publish('audit.settingsChanged', view);
      return ok(view);
    },
  };
}
