/**
 * Turns the entries of one client file into import candidates: the launch spec with its paths
 * resolved, the proposed policy, how each environment value is carried (secrets set apart),
 * and the warnings the user must see before anything starts.
 */
import type { ImportCandidate } from '../contract/clients';
import { defaultPolicy } from '../policy/defaults';
import { serverNameSchema } from '../policy/policy-schema';
import { remotePolicy } from '../policy/remote-policy';
import { urlDestination } from '../policy/url-destination';
import type { ClientEntry } from './client-entries';
import type { ClientId } from './client-formats';
import type { PresetCatalogue } from './preset-types';
import { type PresetPlaces, proposePolicy } from './propose-policy';
import { riskWarnings } from './risk-warnings';
import { type PathContext, mapEnvValue, referencesIn, resolvePath } from './variables';

export interface PlanContext {
  client: ClientId;
  catalogue: PresetCatalogue;
  places: PresetPlaces;
  separator: '/' | '\\';
  /** VS Code `inputs` by id: whether each is a password. */
  inputs: Readonly<Record<string, { password: boolean; description?: string }>>;
  /** Names already taken in Warden's config. */
  taken: ReadonlySet<string>;
  /** Entries imported before (by candidate id) and the Warden server each became. */
  importedAs: Readonly<Record<string, string>>;
  /** Renders a launch spec as one shell-quoted line. */
  commandLine: (launch: { command: string; args: string[] }) => string;
  /** The Warden secret ref a secret value of the entry `entryName` under `key` is kept as. */
  secretRef: (entryName: string, key: string) => string;
}

/** A candidate plus the secret values it needs stored; these never cross the contract. */
export interface PlannedImport {
  candidate: ImportCandidate;
  secrets: { ref: string; key: string; value: string }[];
  /** A remote server's header values, each stored under its `ref` in `candidate.remote`. */
  headers?: { name: string; ref: string; value: string }[];
}

/** The id of an entry within its file. */
export function entryId(keyPath: readonly (string | number)[]): string {
  return JSON.stringify(keyPath);
}

/** A valid Warden server name derived from an entry name, not in `taken`. */
export function uniqueServerName(
  raw: string,
  client: ClientId,
  taken: ReadonlySet<string>,
): string {
  let base = raw
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, 48);
  if (!serverNameSchema.safeParse(base).success) base = 'server';
  if (!taken.has(base)) return base;
  const withClient = `${base}-${client}`;
  if (!taken.has(withClient)) return withClient;
  for (let i = 2; ; i++) if (!taken.has(`${withClient}-${i}`)) return `${withClient}-${i}`;
}

function emptyCandidate(entry: ClientEntry, name: string): ImportCandidate {
  return {
    id: entryId(entry.keyPath),
    entryName: entry.name,
    keyPath: entry.keyPath,
    ...(entry.workspace ? { workspace: entry.workspace } : {}),
    status: 'invalid',
    name,
    presets: [],
    roots: [],
    env: [],
    warnings: [],
    notes: [],
  };
}

/** Plans the import of one entry. `taken` grows with the names handed out. */
export function planEntry(entry: ClientEntry, ctx: PlanContext, taken: Set<string>): PlannedImport {
  const id = entryId(entry.keyPath);
  if (entry.kind === 'remote') return planRemote(entry, ctx, taken);
  if (entry.kind === 'invalid')
    return {
      candidate: { ...emptyCandidate(entry, entry.name), notes: [`not imported: ${entry.reason}`] },
      secrets: [],
    };
  if (entry.kind === 'warden')
    return {
      candidate: {
        ...emptyCandidate(entry, entry.server),
        status: 'through-warden',
        notes: [`already goes through Warden (server "${entry.server}", ${entry.via})`],
      },
      secrets: [],
    };

  const before = ctx.importedAs[id];
  const name = before ?? uniqueServerName(entry.name, ctx.client, taken);
  taken.add(name);
  const paths: PathContext = {
    home: ctx.places.home,
    separator: ctx.separator,
    ...(entry.workspace ? { workspace: entry.workspace } : {}),
  };
  const unresolved = new Set<string>();
  const resolve = (value: string) => {
    const r = resolvePath(value, paths);
    r.unresolved.forEach((u) => unresolved.add(u));
    return r.value;
  };
  const cwd = entry.cwd !== undefined ? resolve(entry.cwd) : entry.workspace;
  const launch = {
    command: resolve(entry.command),
    args: entry.args.map(resolve),
    ...(cwd ? { cwd } : {}),
  };

  const notes: string[] = [];
  const env: ImportCandidate['env'] = [];
  const secrets: PlannedImport['secrets'] = [];
  const sandbox = entry.sandbox
    ? { ...entry.sandbox, allowWrite: entry.sandbox.allowWrite.map(resolve) }
    : undefined;
  const proposal = proposePolicy(launch, entry.env, ctx.catalogue, ctx.places, sandbox);
  const { policy } = proposal;
  for (const [key, value] of Object.entries(entry.env)) {
    const mapped = mapEnvValue(key, value);
    switch (mapped.kind) {
      case 'plain':
        policy.env.set[key] = { kind: 'plain', value: mapped.value };
        env.push({ key, kind: 'plain', shown: mapped.value });
        break;
      case 'secret': {
        const ref = ctx.secretRef(entry.name, key);
        policy.env.set[key] = { kind: 'secret', ref };
        secrets.push({ ref, key, value: mapped.value });
        env.push({ key, kind: 'secret', shown: '•••••• (kept as a Warden secret)' });
        break;
      }
      case 'pass':
        if (!policy.env.pass.includes(mapped.name)) policy.env.pass.push(mapped.name);
        env.push({ key, kind: 'pass', shown: `passed through from your environment (${value})` });
        break;
      case 'input': {
        const input = ctx.inputs[mapped.id];
        policy.env.set[key] = { kind: 'plain', value: mapped.reference };
        env.push({ key, kind: 'input', shown: mapped.reference });
        notes.push(
          `${key} comes from the VS Code input "${mapped.id}"${input?.password ? ' (a password)' : ''}, whose value VS Code keeps; set ${key} in Warden${input?.password ? ' as a secret' : ''} before starting`,
        );
        break;
      }
      case 'reference':
        policy.env.set[key] = { kind: 'plain', value: mapped.reference };
        env.push({ key, kind: 'reference', shown: mapped.reference });
        notes.push(
          `${key} is the reference ${mapped.reference}, kept as written: Warden does not expand it, so set ${key} in Warden if the server needs its value`,
        );
        break;
    }
  }
  // What the launcher's preset sets (its cache, the user's npm settings) is shown too, as such.
  const setBy = proposal.presets.length > 0 ? `Warden's ${proposal.presets[0]} preset` : 'Warden';
  for (const [key, value] of Object.entries(policy.env.set))
    if (!(key in entry.env) && value.kind === 'plain')
      env.push({ key, kind: 'preset', shown: `${value.value} (set by ${setBy})` });
  if (entry.envFile)
    notes.push(
      `the client also loads ${entry.envFile}; Warden does not read it: set what the server needs`,
    );
  for (const arg of [launch.command, ...launch.args])
    referencesIn(arg).forEach((r) => unresolved.add(r));
  const warnings = riskWarnings(entry.command, entry.args, ctx.places.home);
  if (unresolved.size > 0)
    warnings.push({
      kind: 'unresolved',
      message: `references Warden cannot resolve: ${[...unresolved].join(', ')}; edit the command before starting`,
    });
  return {
    candidate: {
      ...emptyCandidate(entry, name),
      status: before ? 'imported' : 'ready',
      launch,
      commandLine: ctx.commandLine(launch),
      policy,
      presets: proposal.presets,
      roots: proposal.roots,
      env,
      warnings,
      notes: [...proposal.notes, ...notes],
    },
    secrets,
  };
}

/**
 * Plans a remote entry: a Warden server that connects to the URL through the gateway, its host
 * allowed, its header values kept as Warden secrets.
 */
function planRemote(
  entry: Extract<ClientEntry, { kind: 'remote' }>,
  ctx: PlanContext,
  taken: Set<string>,
): PlannedImport {
  const url = urlDestination(entry.url);
  if (!url.ok || !/^https?:/i.test(entry.url))
    return {
      candidate: {
        ...emptyCandidate(entry, entry.name),
        notes: [`not imported: the URL ${url.ok ? 'is not http(s)' : url.error}`],
      },
      secrets: [],
    };
  const before = ctx.importedAs[entryId(entry.keyPath)];
  const name = before ?? uniqueServerName(entry.name, ctx.client, taken);
  taken.add(name);
  const headers = Object.entries(entry.headers).map(([header, value]) => ({
    name: header,
    ref: ctx.secretRef(entry.name, `header/${header.toLowerCase()}`),
    value,
  }));
  const remote = {
    url: entry.url,
    transport: entry.transport,
    headers: headers.map(({ name: n, ref }) => ({ name: n, ref })),
  };
  const warnings: ImportCandidate['warnings'] = [];
  if (url.value.kind === 'ip' || url.value.host === 'localhost')
    warnings.push({
      kind: 'private-address',
      message: `a loopback or private address is refused until allowed: warden servers edit ${name} --allow-address ${url.value.host}`,
    });
  return {
    candidate: {
      ...emptyCandidate(entry, name),
      status: before ? 'imported' : 'ready',
      remote,
      commandLine: `${entry.url} (${entry.transport})`,
      policy: remotePolicy(defaultPolicy(), entry.url),
      env: headers.map((h) => ({
        key: `header ${h.name}`,
        kind: 'secret' as const,
        shown: '•••••• (kept as a Warden secret)',
      })),
      warnings,
      notes: [
        `remote server: Warden connects to ${entry.url} and relays it through its gateway`,
        ...headers
          .filter((h) => /\$\{/.test(h.value))
          .map(
            (h) =>
              `the header ${h.name} holds a reference (${h.value.slice(0, 60)}) that Warden sends as written; add the server again with --header ${h.name}:VALUE if it needs the value`,
          ),
      ],
    },
    secrets: [],
    headers,
  };
}

/** Plans every entry of a file, handing out unique names in file order. */
export function planEntries(entries: readonly ClientEntry[], ctx: PlanContext): PlannedImport[] {
  const taken = new Set(ctx.taken);
  return entries.map((e) => planEntry(e, ctx, taken));
}
