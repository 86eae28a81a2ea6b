/**
 * Reads the server entries of a parsed client file into one normalized shape, whatever the
 * client's dialect: `command`/`args`/`env`, Zed's `command: {path, args, env}`, remote `url` or
 * Windsurf's `serverUrl`, and entries that already point at Warden.
 */
import { type ClientId, type KeyPath, isRecord, serverGroups } from './client-formats';

/** VS Code's own `sandbox` block of a stdio server. */
export interface VsCodeSandbox {
  enabled: boolean;
  allowWrite: string[];
  denyRead: string[];
  denyWrite: string[];
  allowedDomains: string[];
  deniedDomains: string[];
}

interface EntryBase {
  /** The entry's name in the client file. */
  name: string;
  /** Where the entry lives in the file: the group's key path plus the name. */
  keyPath: KeyPath;
  /** The project folder this entry belongs to, when the file or group is per project. */
  workspace?: string;
}

export type ClientEntry =
  | (EntryBase & {
      kind: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      envFile?: string;
      sandbox?: VsCodeSandbox;
      /** Zed's older `command: {path, args, env}` shape, kept when Warden writes its entry. */
      zedLegacy: boolean;
    })
  | (EntryBase & {
      kind: 'remote';
      url: string;
      transport: 'streamable-http' | 'sse';
      /** Headers the client sends (values may be secrets or `${env:…}` references). */
      headers: Record<string, string>;
    })
  | (EntryBase & { kind: 'warden'; server: string; via: 'stdio' | 'http' })
  | (EntryBase & { kind: 'invalid'; reason: string });

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;

const stringMap = (value: unknown): Record<string, string> | undefined => {
  if (value === undefined) return {};
  if (!isRecord(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else return undefined;
  }
  return out;
};

function vsCodeSandbox(entry: Record<string, unknown>): VsCodeSandbox | undefined {
  const block = entry.sandbox;
  if (entry.sandboxEnabled === undefined && block === undefined) return undefined;
  const fs = isRecord(block) && isRecord(block.filesystem) ? block.filesystem : {};
  const net = isRecord(block) && isRecord(block.network) ? block.network : {};
  return {
    enabled: entry.sandboxEnabled === true,
    allowWrite: strings(fs.allowWrite) ?? [],
    denyRead: strings(fs.denyRead) ?? [],
    denyWrite: strings(fs.denyWrite) ?? [],
    allowedDomains: strings(net.allowedDomains) ?? [],
    deniedDomains: strings(net.deniedDomains) ?? [],
  };
}

/** The Warden server an entry's command or URL points at, if it is one of Warden's own. */
export function wardenTarget(
  command: string,
  args: readonly string[],
  url?: string,
): { server: string; via: 'stdio' | 'http' } | undefined {
  if (url !== undefined) {
    const m = /^http:\/\/127\.0\.0\.1:\d+\/mcp\/([A-Za-z0-9._-]+)$/.exec(url);
    return m ? { server: m[1]!, via: 'http' } : undefined;
  }
  const all = [command, ...args];
  const at = all.indexOf('connect');
  const isWarden = all.slice(0, at).some((a) => /(^|[\\/])warden(\.m?js|\.cmd|\.exe)?$/.test(a));
  const server = at >= 0 ? all[at + 1] : undefined;
  return isWarden && server ? { server, via: 'stdio' } : undefined;
}

/** Normalizes one entry of `client` found at `keyPath`. */
export function readEntry(
  client: ClientId,
  name: string,
  keyPath: KeyPath,
  value: unknown,
  workspace?: string,
): ClientEntry {
  const base: EntryBase = { name, keyPath, ...(workspace ? { workspace } : {}) };
  if (!isRecord(value)) return { ...base, kind: 'invalid', reason: 'the entry is not an object' };
  const url =
    typeof value.url === 'string'
      ? value.url
      : typeof value.serverUrl === 'string'
        ? value.serverUrl
        : undefined;
  if (url !== undefined) {
    const target = wardenTarget('', [], url);
    if (target) return { ...base, kind: 'warden', ...target };
    const sse = value.type === 'sse' || value.transport === 'sse';
    const headers = stringMap(value.headers) ?? {};
    return { ...base, kind: 'remote', url, transport: sse ? 'sse' : 'streamable-http', headers };
  }
  let command: unknown = value.command;
  let args: unknown = value.args ?? [];
  let env: unknown = value.env;
  let zedLegacy = false;
  if (client === 'zed' && isRecord(value.command)) {
    zedLegacy = true;
    command = value.command.path;
    args = value.command.args ?? [];
    env = value.command.env;
  }
  if (typeof command !== 'string' || command.trim() === '') {
    const reason =
      client === 'zed' && value.source === 'extension'
        ? 'provided by a Zed extension, which starts it itself'
        : 'the entry has no command and no URL';
    return { ...base, kind: 'invalid', reason };
  }
  const argList = strings(args);
  if (!argList) return { ...base, kind: 'invalid', reason: '"args" is not a list of strings' };
  const envMap = stringMap(env);
  if (!envMap) return { ...base, kind: 'invalid', reason: '"env" is not a map of strings' };
  const target = wardenTarget(command, argList);
  if (target) return { ...base, kind: 'warden', ...target };
  const sandbox = client === 'vscode' ? vsCodeSandbox(value) : undefined;
  return {
    ...base,
    kind: 'stdio',
    command,
    args: argList,
    env: envMap,
    ...(typeof value.cwd === 'string' ? { cwd: value.cwd } : {}),
    ...(typeof value.envFile === 'string' ? { envFile: value.envFile } : {}),
    ...(sandbox ? { sandbox } : {}),
    zedLegacy,
  };
}

/** Every server entry of a parsed client file, in file order. */
export function readEntries(
  client: ClientId,
  doc: Record<string, unknown>,
  fileWorkspace?: string,
): ClientEntry[] {
  const out: ClientEntry[] = [];
  for (const group of serverGroups(client, doc)) {
    for (const [name, value] of Object.entries(group.servers)) {
      out.push(
        readEntry(client, name, [...group.keyPath, name], value, group.workspace ?? fileWorkspace),
      );
    }
  }
  return out;
}
