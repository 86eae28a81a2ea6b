/**
 * What the client import and connect services share: Warden's home and config, the records
 * file, where clients keep their files on this machine, the presets catalogue, the secret store
 * and how the `warden` command is invoked from a client's config.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import catalogueJson from '../../resources/presets/catalogue.json';
import { type ClientId, clientFormats } from '../../app/clients/client-formats';
import { type PresetCatalogue, presetCatalogueSchema } from '../../app/clients/preset-types';
import type { WardenCommand } from '../../app/clients/warden-entry';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, err } from '../../app/result';
import type { ConfigStore } from '../config/config-store';
import { resolveWardenHome } from '../config/warden-home';
import { ClientTokens } from '../gateway/client-tokens';
import { DEFAULT_GATEWAY_PORT } from '../gateway/front-doors';
import { type GatewayCheck, checkGateway } from '../gateway/gateway-check';
import type { SecretStore } from '../secrets/secret-store';
import { type ClientLocation, type LocationContext, clientLocations } from './client-locations';
import { ClientRecords } from './client-records';

export interface ClientsContext {
  wardenHome: string;
  config: ConfigStore;
  records: ClientRecords;
  locations: LocationContext;
  catalogue: PresetCatalogue;
  /** Where secret values found in client configs are kept; without one they are not imported. */
  secrets: SecretStore | undefined;
  warden: WardenCommand;
  gatewayPort: number;
  /** The per-client bearer tokens of the HTTP gateway. */
  tokens: ClientTokens;
  /** Whether the gateway port is Warden's own; nothing is pointed at it otherwise. */
  gatewayCheck: () => Promise<GatewayCheck>;
  now: () => Date;
}

/** The presets catalogue shipped in resources/presets, validated. */
export function builtinCatalogue(): PresetCatalogue {
  return presetCatalogueSchema.parse(catalogueJson);
}

/**
 * The checkout's or package's `bin/warden.js`, found upwards from this module: the build puts
 * this code in a chunk whose depth below the package root is not fixed.
 */
function wardenBin(): string | undefined {
  let dir: string;
  try {
    dir = dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'bin', 'warden.js');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

/** What decides how a client's config starts Warden: this process's runtime and layout. */
export interface WardenRuntime {
  platform: NodeJS.Platform;
  /** This runtime's executable: node, or the app's (Electron). */
  execPath: string;
  electron: boolean;
  /** The app's resources folder (Electron), where the packaged `bin/warden` launcher is. */
  resourcesPath?: string;
  /** `bin/warden.js` of this checkout or package, if found. */
  bin?: string;
  exists: (path: string) => boolean;
}

/**
 * How a client's config should start Warden. On Linux and macOS, a shell front that joins a
 * running core without starting a runtime (bin/warden-door.sh): the app's launcher
 * (`resources/bin/warden`) under a packaged app, else `bin/warden` beside `bin/warden.js` with
 * this Node for the rest (WARDEN_NODE). Otherwise (Windows, an unpackaged Electron): this runtime
 * and `bin/warden.js` (with ELECTRON_RUN_AS_NODE under Electron). WARDEN_HOME when it is not the
 * default of the environment the command will run in (`from`: this process's by default).
 */
export function wardenCommandFor(
  wardenHome: string,
  rt: WardenRuntime,
  from: NodeJS.ProcessEnv = process.env,
): WardenCommand {
  const env: Record<string, string> = {};
  const home = resolveWardenHome({ ...from, WARDEN_HOME: undefined });
  if (home !== wardenHome) env.WARDEN_HOME = wardenHome;
  const bin = rt.bin ?? 'warden';
  if (rt.platform !== 'win32') {
    const launcher = rt.resourcesPath ? join(rt.resourcesPath, 'bin', 'warden') : undefined;
    if (rt.electron && launcher && rt.exists(launcher)) return { command: launcher, args: [], env };
    const front = join(dirname(bin), 'warden');
    if (!rt.electron && rt.bin && rt.exists(front))
      return { command: front, args: [], env: { ...env, WARDEN_NODE: rt.execPath } };
  }
  if (rt.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return { command: rt.execPath, args: [bin], env };
}

/** How a client's config should start this Warden (see wardenCommandFor). */
export function defaultWardenCommand(
  wardenHome: string,
  from: NodeJS.ProcessEnv = process.env,
): WardenCommand {
  return wardenCommandFor(
    wardenHome,
    {
      platform: process.platform,
      execPath: process.execPath,
      electron: process.versions.electron !== undefined,
      resourcesPath: (process as { resourcesPath?: string }).resourcesPath,
      bin: wardenBin() ?? process.argv[1],
      exists: existsSync,
    },
    from,
  );
}

/** Builds the context with defaults for everything but Warden's home and config. */
export function clientsContext(
  options: Pick<ClientsContext, 'wardenHome' | 'config' | 'locations'> & Partial<ClientsContext>,
): ClientsContext {
  const tokens = options.tokens ?? new ClientTokens(options.wardenHome);
  const gatewayPort = options.gatewayPort ?? DEFAULT_GATEWAY_PORT;
  return {
    records: new ClientRecords(options.wardenHome),
    catalogue: builtinCatalogue(),
    secrets: undefined,
    warden: defaultWardenCommand(options.wardenHome),
    gatewayPort,
    tokens,
    gatewayCheck: async () => checkGateway(gatewayPort, await tokens.ownerKey()),
    now: () => new Date(),
    ...options,
  };
}

/** The files an operation on `client` covers: the picked one, else every usual location. */
export function targetLocations(
  ctx: ClientsContext,
  client: ClientId,
  picked?: string,
): ClientLocation[] {
  if (!picked) return clientLocations(client, ctx.locations);
  const found = pickedWorkspace(picked);
  const workspace = found === ctx.locations.home ? undefined : found;
  return [{ path: picked, scope: 'picked', ...(workspace ? { workspace } : {}) }];
}

/** The project folder of a picked project file (`.vscode/mcp.json`, `.cursor/mcp.json`, `.mcp.json`). */
export function pickedWorkspace(path: string): string | undefined {
  const m = /^(.*)[\\/](?:\.vscode[\\/]mcp\.json|\.cursor[\\/]mcp\.json|\.mcp\.json)$/.exec(path);
  return m?.[1] || undefined;
}

/** A file a client reads in a project folder: the folder, then the file's own place in it. */
const PROJECT_FILE =
  /^(.*)[\\/](?:\.vscode[\\/]mcp\.json|\.cursor[\\/]mcp\.json|\.mcp\.json|\.zed[\\/]settings\.json)$/;

/**
 * The project folder that `path` is a client's project file of (`.vscode/mcp.json`,
 * `.cursor/mcp.json`, `.mcp.json`, `.zed/settings.json`), if it is one. In the home only
 * `~/.cursor/mcp.json` is a user's file (Cursor's); the others there are a project's too (Claude
 * Code started in the home reads `~/.mcp.json` as one, and homes are kept in git). A gateway token
 * is never written into such a file: it would go wherever the project goes (a commit, say).
 */
export function projectFolderOf(path: string, home: string): string | undefined {
  const full = resolve(path);
  const found = PROJECT_FILE.exec(full)?.[1];
  if (!found) return undefined;
  const cursorUser = found === resolve(home) && /[\\/]\.cursor[\\/]mcp\.json$/.test(full);
  return cursorUser ? undefined : found;
}

/** The error for a client with no config file where it usually keeps one. */
export function noConfigFound(
  client: ClientId,
  locations: ClientLocation[],
): Result<never, ContractError> {
  return err({
    kind: 'not-found',
    message: `no ${clientFormats[client].label} config found (looked at ${locations.map((l) => l.path).join(', ')})`,
    remedy: 'pick the file with --path FILE',
  });
}

/** The Warden secret ref for a value found in a client file; stable across re-imports. */
export function importSecretRef(
  client: ClientId,
  file: string,
  entryName: string,
  key: string,
): string {
  const digest = createHash('sha256').update(file).digest('hex').slice(0, 8);
  const safe = entryName.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64);
  return `import:${client}:${digest}:${safe}:${key}`;
}
