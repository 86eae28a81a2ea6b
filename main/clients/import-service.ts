/**
 * Import from a client's config: the preview (every server, full command, proposed policy,
 * warnings) and, once the user confirms, the servers added to Warden's config with their secret
 * values moved into the secret store. Nothing is started here.
 */
import { checkScript } from '../../app/policy/script-check';
import { access, mkdir, realpath, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { readEntries } from '../../app/clients/client-entries';
import { type ClientId, clientFormats, isRecord } from '../../app/clients/client-formats';
import { type PlannedImport, planEntries } from '../../app/clients/import-plan';
import { parentDir } from '../../app/clients/propose-policy';
import type { ImportChoice, ImportPreview, ImportResult } from '../../app/contract/clients';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, err, ok } from '../../app/result';
import type { RemoteSpec } from '../../app/policy/policy-schema';
import { formatCommandLine } from '../core/command-line';
import { readClientFile } from './client-file';
import { presetPlaces } from './client-locations';
import { npmUserSettings } from './npm-user-settings';
import {
  type ClientsContext,
  importSecretRef,
  noConfigFound,
  targetLocations,
} from './clients-context';

interface FilePlan {
  preview: ImportPreview;
  planned: PlannedImport[];
  /** Launcher cache folders that do not exist yet and are created on import. */
  toCreate: string[];
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function onPath(
  command: string,
  env: ClientsContext['locations']['env'],
): Promise<string | undefined> {
  if (command.includes('/') || command.includes('\\')) return command;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** Checks the proposed roots on this machine and adds a runtime installed in the home folder. */
async function settleRoots(
  ctx: ClientsContext,
  plan: PlannedImport,
  toCreate: string[],
): Promise<void> {
  const c = plan.candidate;
  if (!c.policy || !c.launch) return;
  const home = ctx.locations.home;
  const kept: typeof c.roots = [];
  for (const root of c.roots) {
    if (await exists(root.path)) kept.push(root);
    else if (root.access === 'write' && ctx.catalogue.launchers.some((l) => l.id === root.from)) {
      kept.push(root);
      toCreate.push(root.path);
      c.notes.push(`${root.path} does not exist yet; it is created on import (${root.why})`);
    } else c.notes.push(`not granted: ${root.path} does not exist on this machine (${root.why})`);
  }
  const found = await onPath(c.launch.command, ctx.locations.env);
  const real = found ? await realpath(found).catch(() => undefined) : undefined;
  if (real?.startsWith(`${home}${sep}`)) {
    const dir = parentDir(real);
    const prefix = /[\\/]bin$/.test(dir) ? parentDir(dir) : dir;
    if (!kept.some((r) => prefix === r.path || prefix.startsWith(`${r.path}${sep}`)))
      kept.push({
        path: prefix,
        access: 'read',
        why: `${c.launch.command} is installed in your home folder (${real})`,
        from: 'runtime',
      });
  }
  c.roots = kept;
  c.policy.filesystem.roots = kept.map(({ path, access: a }) => ({ path, access: a }));
  // The config store refuses such a server; the preview says so first, with the folder to give.
  const script = checkScript(c.launch, c.policy);
  if (script)
    c.warnings.push({
      kind: script.kind,
      message: `${script.message}: ${script.remedy}; Warden refuses to add it until then`,
    });
}

async function planFile(
  ctx: ClientsContext,
  client: ClientId,
  location: { path: string; workspace?: string },
  doc: Record<string, unknown>,
): Promise<FilePlan> {
  const records = await ctx.records.read();
  const importedAs: Record<string, string> = {};
  for (const r of records.imports)
    if (r.client === client && r.file === location.path && ctx.config.getServer(r.server))
      importedAs[r.id] = r.server;
  const inputs: Record<string, { password: boolean; description?: string }> = {};
  if (Array.isArray(doc.inputs))
    for (const input of doc.inputs)
      if (isRecord(input) && typeof input.id === 'string')
        inputs[input.id] = {
          password: input.password === true,
          ...(typeof input.description === 'string' ? { description: input.description } : {}),
        };
  const planned = planEntries(readEntries(client, doc, location.workspace), {
    client,
    catalogue: ctx.catalogue,
    places: {
      ...presetPlaces(ctx.locations),
      npmrc: npmUserSettings(ctx.locations, ctx.catalogue),
    },
    separator: ctx.locations.platform === 'win32' ? '\\' : '/',
    inputs,
    taken: new Set(ctx.config.listServers().map((s) => s.name)),
    importedAs,
    commandLine: formatCommandLine,
    secretRef: (entryName, key) => importSecretRef(client, location.path, entryName, key),
  });
  const toCreate: string[] = [];
  for (const p of planned) await settleRoots(ctx, p, toCreate);
  return {
    preview: {
      client,
      label: clientFormats[client].label,
      file: location.path,
      candidates: planned.map((p) => p.candidate),
      secretStore: ctx.secrets
        ? ctx.secrets.description
        : 'no secret store: values that look like secrets are left out of Warden; set them in Warden before starting',
    },
    planned,
    toCreate,
  };
}

async function planClient(
  ctx: ClientsContext,
  client: ClientId,
  picked?: string,
): Promise<Result<FilePlan[], ContractError>> {
  const locations = targetLocations(ctx, client, picked);
  const plans: FilePlan[] = [];
  for (const location of locations) {
    const file = await readClientFile(client, location.path);
    if (!file.ok) return file;
    if (!file.value) continue;
    plans.push(await planFile(ctx, client, location, file.value.doc));
  }
  return plans.length > 0 ? ok(plans) : noConfigFound(client, locations);
}

/** The import preview of every config file of `client` (or the picked one). */
export async function previewImport(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string },
): Promise<Result<ImportPreview[], ContractError>> {
  const plans = await planClient(ctx, input.client, input.path);
  return plans.ok ? ok(plans.value.map((p) => p.preview)) : plans;
}

/** Imports the servers the user confirmed (every ready one without a choice saying otherwise). */
export async function applyImport(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string; choices?: ImportChoice[] },
): Promise<Result<ImportResult[], ContractError>> {
  const plans = await planClient(ctx, input.client, input.path);
  if (!plans.ok) return plans;
  const results: ImportResult[] = [];
  for (const plan of plans.value) {
    const result: ImportResult = { file: plan.preview.file, imported: [], skipped: [], notes: [] };
    for (const { candidate: c, secrets, headers } of plan.planned) {
      const choice = input.choices?.find((ch) => ch.id === c.id);
      if (c.status !== 'ready' || (!c.launch && !c.remote) || !c.policy) {
        result.skipped.push({
          id: c.id,
          reason: c.status === 'imported' ? `already imported as "${c.name}"` : c.status,
        });
        continue;
      }
      if (choice && !choice.include) {
        result.skipped.push({ id: c.id, reason: 'left out by the user' });
        continue;
      }
      const name = choice?.name ?? c.name;
      const policy = structuredClone(choice?.policy ?? c.policy);
      for (const s of secrets) {
        const value = policy.env.set[s.key];
        if (value?.kind !== 'secret') continue;
        if (ctx.secrets) {
          const stored = await ctx.secrets.set(value.ref, s.value);
          if (!stored.ok)
            return err({
              kind: 'internal',
              message: stored.error.message,
              remedy: stored.error.remedy,
            });
        } else {
          delete policy.env.set[s.key];
          result.notes.push(
            `${name}: ${s.key} looks like a secret and no secret store is available; it was left out: set it in Warden`,
          );
        }
      }
      const source = c.launch
        ? { launch: c.launch }
        : await storeHeaders(ctx, name, c.remote!, headers ?? [], result.notes);
      if ('error' in source) return err(source.error);
      const added = await ctx.config.addServer({ name, ...source, policy });
      if (!added.ok) {
        result.skipped.push({ id: c.id, reason: added.error.message });
        continue;
      }
      await ctx.config.updateServer(name, () => ({ acknowledged: true }));
      for (const dir of plan.toCreate.filter((d) =>
        policy.filesystem.roots.some((r) => r.path === d),
      ))
        await mkdir(dir, { recursive: true, mode: 0o700 });
      await ctx.records.update((r) => {
        r.imports = r.imports.filter(
          (i) => !(i.client === input.client && i.file === plan.preview.file && i.id === c.id),
        );
        r.imports.push({
          client: input.client,
          file: plan.preview.file,
          id: c.id,
          server: name,
          at: ctx.now().toISOString(),
        });
      });
      result.imported.push({ id: c.id, name });
    }
    results.push(result);
  }
  return ok(results);
}

/**
 * Stores an imported remote server's header values as secrets; without a secret store a header
 * is left out (and said so), never written to config.json.
 */
async function storeHeaders(
  ctx: ClientsContext,
  name: string,
  remote: RemoteSpec,
  values: readonly { name: string; ref: string; value: string }[],
  notes: string[],
): Promise<{ remote: RemoteSpec } | { error: ContractError }> {
  const kept: RemoteSpec['headers'] = [];
  for (const h of values) {
    if (!ctx.secrets) {
      notes.push(`${name}: no secret store is available, so the header ${h.name} was left out`);
      continue;
    }
    const stored = await ctx.secrets.set(h.ref, h.value);
    if (!stored.ok)
      return {
        error: { kind: 'internal', message: stored.error.message, remedy: stored.error.remedy },
      };
    kept.push({ name: h.name, ref: h.ref });
  }
  return { remote: { ...remote, headers: kept } };
}
