/**
 * The contract operations of a core (what the control panel and the CLI call through a running
 * core). Loaded on the first call, so that a core that only relays sessions (`warden connect`)
 * never loads the clients code, the MCP client of "Try it" or the operations' schemas.
 */
import type { ClientId } from '../../app/clients/client-formats';
import { join } from 'node:path';
import type { GatewayStatus } from '../../app/contract/gateway';
import type { ContractError } from '../../app/contract/contract-error';
import type { Reply } from '../../app/contract/reply';
import type { AutostartState } from '../../app/contract/autostart';
import { err, ok } from '../../app/result';
import type { Autostart } from '../autostart/login-item';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../gateway/line-transport';
import { currentLocationContext } from '../clients/client-locations';
import {
  type ClientsContext,
  clientsContext,
  defaultWardenCommand,
} from '../clients/clients-context';
import { createClientsHandlers } from '../clients/clients-handlers';
import { ClientTokens } from '../gateway/client-tokens';
import { createOAuthHandlers } from '../remote/oauth/oauth-handlers';
import { systemBrowser } from '../remote/oauth/system-browser';
import type { SecretError, SecretStore } from '../secrets/secret-store';
import type { TelemetryControl } from '../telemetry/telemetry';
import { type HandlerServices, createHandlers } from './core-handlers';
import { createContractRouter } from './contract-router';
import { settingChanged } from './settings-edits';
import { createDetailHandlers } from './detail-handlers';

export interface CoreRouterDeps extends HandlerServices {
  secretStore: SecretStore;
  gatewayStatus: () => GatewayStatus;
  /** Shows an OAuth sign-in page (the desktop app's shell; the system browser otherwise). */
  openExternal?: (url: URL) => Promise<void>;
  /** This core's login item, when it has one. */
  autostart?: Autostart | undefined;
  /** This core's OpenTelemetry export. */
  telemetry: TelemetryControl;
}

/** What a core without a login item (a CLI core) answers. */
const NO_AUTOSTART: AutostartState = {
  available: false,
  enabled: false,
  target: 'this Warden',
  where: 'none',
  reason: 'Only the desktop app and `warden serve` can start at login.',
};

const secretsError = (error: SecretError): ContractError => ({
  kind: 'internal',
  message: error.message,
  remedy: error.remedy,
});

/** Builds the entry point that validates and runs every contract operation of a core. */
export function createCoreRouter(
  d: CoreRouterDeps,
): (op: unknown, input: unknown) => Promise<Reply> {
  const clients = clientsContext({
    wardenHome: d.wardenHome,
    config: d.config,
    locations: currentLocationContext(),
    secrets: d.secretStore,
  });
  // While this core's own gateway runs, clients are pointed at its port, which it knows is its own.
  const clientsInCore: ClientsContext = {
    ...clients,
    get gatewayPort() {
      const status = d.gatewayStatus();
      return status.kind === 'running' ? status.port : clients.gatewayPort;
    },
    gatewayCheck: () => {
      const status = d.gatewayStatus();
      return status.kind === 'running'
        ? Promise.resolve({ kind: 'warden', port: status.port })
        : clients.gatewayCheck();
    },
  };
  // A change of a setting that is no server's, recorded as a change of the guards is.
  const recordSettingChange = (changed: string[]) => d.audit.append(settingChanged(changed));
  // Tokens for the HTTP snippets the control panel copies, one per client, made at the first
  // copy in this run, and again after it was revoked (or its making failed).
  const snippetTokens = new Map<ClientId, Promise<string>>();
  const startedAt = new Date().toISOString();
  const snippetToken = (client: ClientId): Promise<string> => {
    // One after another per client: two copies at once get one token, not one revoking the other.
    const before = snippetTokens.get(client);
    const next = (async () => {
      const tokens = new ClientTokens(d.wardenHome);
      const kept = await before?.catch(() => undefined);
      if (kept !== undefined && (await tokens.check(kept))) return kept;
      return tokens.issue(client, `a snippet copied from the control panel (${startedAt})`);
    })();
    snippetTokens.set(client, next);
    return next;
  };
  return createContractRouter({
    ...createDetailHandlers({
      config: d.config,
      supervisor: d.supervisor,
      warden: defaultWardenCommand(d.wardenHome),
      gateway: () => {
        const status = d.gatewayStatus();
        return status.kind === 'running'
          ? { origin: `http://127.0.0.1:${status.port}`, tokenFor: snippetToken }
          : undefined;
      },
    }),
    'gateway.status': () => Promise.resolve({ ok: true as const, value: d.gatewayStatus() }),
    'autostart.get': async () => ok(d.autostart ? await d.autostart.state() : NO_AUTOSTART),
    'autostart.set': async ({ enabled }) =>
      ok(d.autostart ? await d.autostart.set(enabled) : NO_AUTOSTART),
    ...createHandlers(d),
    ...createClientsHandlers(clientsInCore),
    // The export reads its header values from this core's store: they are set here, and this
    // core's export follows at once.
    'telemetry.get': () => {
      const settings = d.config.telemetry();
      const state = d.telemetry.state();
      return Promise.resolve(
        ok({
          ...(settings && {
            settings: { endpoint: settings.endpoint, headers: Object.keys(settings.headers ?? {}) },
          }),
          export: state.kind,
          ...(state.kind === 'failed' && { problem: state.problem }),
        }),
      );
    },
    'telemetry.set': async (input) => {
      const { setTelemetry } = await import('../telemetry/telemetry-settings-service');
      const before = d.config.telemetry();
      const set = await setTelemetry(d.config, d.secretStore, input);
      if (!set.ok) return set;
      // Where the log goes is recorded in it, as a change of the guards is.
      const changed = [
        ...(before?.endpoint === input.endpoint ? [] : ['telemetry.endpoint']),
        ...(input.headers.length > 0 || before?.headers ? ['telemetry.headers'] : []),
      ];
      if (changed.length > 0) recordSettingChange(changed);
      d.telemetry.apply(d.config.telemetry());
      return set;
    },
    'telemetry.off': async () => {
      const { telemetryOff } = await import('../telemetry/telemetry-settings-service');
      const before = d.config.telemetry();
      const off = await telemetryOff(d.config, d.secretStore);
      if (!off.ok) return off;
      // The row saying so is the last one the export sends.
      if (before) {
        recordSettingChange(['telemetry']);
        await d.audit.flush();
      }
      d.telemetry.apply(undefined);
      return off;
    },
    'secrets.status': async () => {
      const unencrypted = d.secretStore.unencrypted;
      const store = {
        store: d.secretStore.description,
        encrypted: d.secretStore.encrypted === true,
      };
      if (!unencrypted) return ok(store);
      const listed = await unencrypted.list();
      if (!listed.ok) return err(secretsError(listed.error));
      const { names, differing } = listed.value;
      return ok({
        ...store,
        ...(names.length + differing.length > 0 && {
          unencrypted: { file: unencrypted.file, names, differing },
        }),
      });
    },
    'secrets.moveIn': async ({ differing }) => {
      if (!d.secretStore.unencrypted) {
        return err<ContractError>({
          kind: 'invalid-input',
          message: `only the Warden desktop app keeps secrets in the OS keychain; this Warden keeps them in ${d.secretStore.description}`,
          remedy: 'start the Warden app and move them from its Host status',
        });
      }
      const moved = await d.secretStore.unencrypted.moveIn(differing);
      return moved.ok ? moved : err(secretsError(moved.error));
    },
    ...createOAuthHandlers({
      getServer: (name) => d.config.getServer(name),
      secretStore: d.secretStore,
      lockDir: join(d.wardenHome, 'run'),
      openBrowser: d.openExternal ?? systemBrowser((line) => process.stderr.write(line)),
      // A sign-in reaches the authorization server under the server's network policy too.
      egressFor: async (server) => {
        const { remoteEgress } = await import('../remote/remote-launcher');
        const egress = remoteEgress(server, 'sign-in', {
          grants: d.grants,
          audit: (event) => d.audit.append(event),
          maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
        });
        if (egress.ok) return egress;
        const { message, remedy } = egress.error;
        return err<ContractError>({ kind: 'invalid-input', message, remedy });
      },
    }),
  });
}
