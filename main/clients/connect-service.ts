/**
 * Connect a client through Warden: every imported entry of its config is replaced by Warden's own
 * (stdio `warden connect NAME`, or the HTTP URL with a token of its own), after a byte-exact
 * backup; entries not imported (remote ones included) are left alone. Over HTTP, only while the
 * gateway port is proven to be Warden's. Disconnect restores the backup when the file holds only
 * Warden's change, else puts the client's own entries back with the same JSONC edits, and revokes
 * the token. Connecting a file that is connected already brings Warden's own stdio entries, where
 * they are still as Warden wrote them, to the command this Warden starts (an older one may start
 * slower).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readEntries } from '../../app/clients/client-entries';
import { type ClientId, type KeyPath, clientFormats } from '../../app/clients/client-formats';
import { entryId } from '../../app/clients/import-plan';
import { unifiedDiff } from '../../app/clients/line-diff';
import { MASK, maskSecrets, secretValuesIn } from '../../app/clients/mask-secrets';
import { type Transport, wardenEntry } from '../../app/clients/warden-entry';
import type { ConnectPreview, ConnectResult, DisconnectResult } from '../../app/contract/clients';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, err, ok } from '../../app/result';
import { readRegularFile } from '../config/regular-file';
import { describeGatewayProblem } from '../gateway/gateway-check';
import {
  type ClientFile,
  MAX_CLIENT_FILE_BYTES,
  editText,
  parseClientText,
  readClientFile,
  sha256,
  tokenFileMode,
  writeClientFile,
} from './client-file';
import type { ConnectionRecord } from './client-records';
import { type ClientsContext, noConfigFound, targetLocations } from './clients-context';
import { fileTransport } from './connect-transport';
import { staleEntry, valueAt } from './stale-entry';

interface ConnectPlan {
  preview: ConnectPreview;
  file: ClientFile;
  /** The file's connection, when it is connected already (only stale entries are rewritten). */
  connection: ConnectionRecord | undefined;
  after: string;
  entries: {
    keyPath: KeyPath;
    entryName: string;
    server: string;
    original: unknown;
    written: unknown;
  }[];
}

async function planConnect(
  ctx: ClientsContext,
  client: ClientId,
  file: ClientFile,
  transport: Transport,
  token: string,
): Promise<ConnectPlan> {
  const records = await ctx.records.read();
  const importedAs = new Map(
    records.imports
      .filter((r) => r.client === client && r.file === file.path)
      .map((r) => [r.id, r.server]),
  );
  const gateway = {
    origin: `http://127.0.0.1:${ctx.gatewayPort}`,
    token: transport === 'http' ? token : '',
  };
  const connection = records.connections.find((c) => c.client === client && c.file === file.path);
  const entries: ConnectPlan['entries'] = [];
  const updated = new Set<ConnectPlan['entries'][number]>();
  const untouched: ConnectPreview['untouched'] = [];
  for (const entry of readEntries(client, file.doc)) {
    const server = importedAs.get(entryId(entry.keyPath));
    const stale =
      connection && staleEntry(ctx, client, transport, connection, entry.keyPath, file.doc);
    if (stale) {
      entries.push(stale);
      updated.add(stale);
    } else if (connection && entry.kind !== 'warden') {
      untouched.push({
        entryName: entry.name,
        reason: 'the file is connected already (disconnect, then connect, to take it in)',
      });
    } else if (entry.kind === 'warden' || entry.kind === 'invalid') {
      const reason = entry.kind === 'warden' ? 'already goes through Warden' : entry.reason;
      untouched.push({ entryName: entry.name, reason });
    } else if (!server || !ctx.config.getServer(server)) {
      untouched.push({
        entryName: entry.name,
        reason: 'not imported into Warden (import it first)',
      });
    } else {
      const original = valueAt(file.doc, entry.keyPath);
      // Zed keeps per-server `source` and `settings` beside the command; they stay as they are.
      const keep: Record<string, unknown> = {};
      if (client === 'zed' && original && typeof original === 'object')
        for (const key of ['source', 'settings'])
          if (key in original) keep[key] = (original as Record<string, unknown>)[key];
      const written = wardenEntry(client, server, transport, ctx.warden, gateway, {
        zedLegacy: entry.kind === 'stdio' && entry.zedLegacy,
        keep,
      });
      entries.push({ keyPath: entry.keyPath, entryName: entry.name, server, original, written });
    }
  }
  const after = editText(
    file.text,
    entries.map((e) => ({ keyPath: e.keyPath, value: e.written })),
  );
  return {
    preview: {
      client,
      file: file.path,
      transport,
      // Secrets of the client's own entries and the bearer token written for HTTP stay masked.
      diff: maskSecrets(unifiedDiff(file.text, after, file.path), [
        ...secretValuesIn(file.doc),
        ...secretValuesIn(entries.map((e) => e.written)),
      ]),
      rewritten: entries.map((e) => ({
        entryName: e.entryName,
        server: e.server,
        ...(updated.has(e) ? { updated: true } : {}),
      })),
      untouched,
    },
    file,
    connection,
    after,
    entries,
  };
}

async function planAll(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string; transport?: Transport },
): Promise<Result<ConnectPlan[], ContractError>> {
  if (input.transport === 'http' && !clientFormats[input.client].takesUrl)
    return err({
      kind: 'invalid-input',
      message: `${clientFormats[input.client].label} takes only stdio commands in its config, not URLs`,
      remedy: 'connect it with --transport stdio',
    });
  if (input.transport === 'http') {
    const check = await ctx.gatewayCheck();
    if (check.kind !== 'warden')
      return err({
        kind: 'conflict',
        message: `${describeGatewayProblem(check)}: its address is not written into ${clientFormats[input.client].label}'s config, whose requests and token would go to whatever holds the port`,
        remedy:
          check.kind === 'not-running'
            ? `start "warden serve" or the Warden app first, then connect again; or connect with --transport stdio`
            : `stop that program, or run Warden's gateway on another port ("warden serve --gateway-port N", then connect with --gateway-port N); or connect with --transport stdio`,
      });
  }
  const locations = targetLocations(ctx, input.client, input.path);
  const records = await ctx.records.read();
  const plans: ConnectPlan[] = [];
  for (const location of locations) {
    const file = await readClientFile(input.client, location.path);
    if (!file.ok) return file;
    // A connected file keeps its transport unless another is asked for.
    const connected = records.connections.find(
      (c) => c.client === input.client && c.file === location.path,
    );
    if (!file.value) continue;
    const transport = fileTransport(ctx, input, location.path, connected?.transport);
    if (!transport.ok) return transport;
    // The token is issued only when the file is written; a preview shows it masked.
    plans.push(await planConnect(ctx, input.client, file.value, transport.value, MASK));
  }
  return plans.length > 0 ? ok(plans) : noConfigFound(input.client, locations);
}

/** What connecting would change, as a diff per file; changes nothing. */
export async function previewConnect(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string; transport?: Transport },
): Promise<Result<ConnectPreview[], ContractError>> {
  const plans = await planAll(ctx, input);
  return plans.ok ? ok(plans.value.map((p) => p.preview)) : plans;
}

/** Rewrites the client's imported entries to go through Warden, keeping a backup. */
export async function connectClient(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string; transport?: Transport },
): Promise<Result<ConnectResult[], ContractError>> {
  const plans = await planAll(ctx, input);
  if (!plans.ok) return plans;
  const results: ConnectResult[] = [];
  const already = plans.value.find((p) => p.connection && p.entries.length === 0);
  if (already)
    return err({
      kind: 'conflict',
      message: `${already.file.path} is already connected through Warden`,
      remedy: `run "warden clients disconnect ${input.client}" first`,
    });
  for (const planned of plans.value.filter((p) => p.entries.length > 0)) {
    const transport = planned.preview.transport;
    const plan =
      transport === 'http'
        ? await planConnect(
            ctx,
            input.client,
            planned.file,
            transport,
            await ctx.tokens.issue(input.client, planned.file.path, ctx.now()),
          )
        : planned;
    const { file } = plan;
    const reparsed = parseClientText(input.client, file.path, plan.after);
    if (
      !reparsed.ok ||
      plan.entries.some(
        (e) => JSON.stringify(valueAt(reparsed.value, e.keyPath)) !== JSON.stringify(e.written),
      )
    ) {
      if (transport === 'http')
        await ctx.tokens.revoke(input.client, 'never written', file.path, ctx.now());
      return err({
        kind: 'internal',
        message: `${file.path}: the edit did not come out as planned; nothing was changed`,
      });
    }
    if (plan.connection) {
      const refreshed = await refreshConnected(ctx, plan, plan.connection);
      if (!refreshed.ok) return refreshed;
      results.push(refreshed.value);
      continue;
    }
    const dir = join(ctx.wardenHome, 'backups');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const stamp = ctx.now().toISOString().replace(/[:.]/g, '-');
    // The backup is the bytes read again now, which must still be the text the plan was made from.
    const again = await readRegularFile(file.path, MAX_CLIENT_FILE_BYTES);
    if (!again.ok || sha256(again.value.text) !== sha256(file.text)) {
      if (transport === 'http')
        await ctx.tokens.revoke(input.client, 'never written', file.path, ctx.now());
      return err({
        kind: 'conflict',
        message: `${file.path} changed while Warden was reading it; nothing was changed`,
        remedy: 'try again',
      });
    }
    const backup = await writeBackup(
      join(dir, `${input.client}-${stamp}-${basename(file.path)}`),
      again.value.bytes,
    );
    await ctx.records.update((r) => {
      r.connections.push({
        client: input.client,
        file: file.path,
        transport: plan.preview.transport,
        connectedAt: ctx.now().toISOString(),
        backup,
        originalSha256: sha256(file.text),
        connectedSha256: sha256(plan.after),
        originalMode: file.mode & 0o7777,
        entries: plan.entries,
      });
    });
    const note = await writeClientFile(file.path, plan.after, file.mode, transport === 'http');
    results.push({ ...plan.preview, backup, ...(note ? { notes: [note] } : {}) });
  }
  if (results.length === 0)
    return err({
      kind: 'not-found',
      message: `nothing to connect: no imported server in ${plans.value.map((p) => p.file.path).join(', ')}`,
      remedy: `run "warden import ${input.client}" first`,
    });
  return ok(results);
}

/**
 * Writes `bytes` to a new file at `path`, or beside it with a number added where that name is
 * taken (two files of one name connected within a millisecond): a backup is never overwritten.
 */
async function writeBackup(path: string, bytes: Buffer): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? path : `${path}.${n}`;
    try {
      await writeFile(name, bytes, { flag: 'wx', mode: 0o600 });
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw error;
    }
  }
}

/**
 * Writes a connected file's refreshed entries, and records them as what Warden wrote. The file
 * counts as holding only Warden's change afterwards if it did before (disconnect then restores
 * the backup byte for byte); otherwise disconnect puts the client's entries back by edits.
 */
async function refreshConnected(
  ctx: ClientsContext,
  plan: ConnectPlan,
  connection: ConnectionRecord,
): Promise<Result<ConnectResult, ContractError>> {
  const { file } = plan;
  const again = await readRegularFile(file.path, MAX_CLIENT_FILE_BYTES);
  if (!again.ok || sha256(again.value.text) !== sha256(file.text))
    return err({
      kind: 'conflict',
      message: `${file.path} changed while Warden was reading it; nothing was changed`,
      remedy: 'try again',
    });
  const http = plan.preview.transport === 'http';
  const note = await writeClientFile(file.path, plan.after, file.mode, http);
  await ctx.records.update((r) => {
    const x = r.connections.find((c) => c.client === connection.client && c.file === file.path);
    if (!x) return;
    for (const e of plan.entries) {
      const at = x.entries.find((y) => JSON.stringify(y.keyPath) === JSON.stringify(e.keyPath));
      if (at) at.written = e.written;
    }
    if (x.connectedSha256 === sha256(file.text)) x.connectedSha256 = sha256(plan.after);
  });
  return ok({ ...plan.preview, backup: connection.backup, ...(note ? { notes: [note] } : {}) });
}

/**
 * The mode a disconnected file is written with: the one it had before connect where the mode is
 * still what Warden's write left (its token taken out, it need not be 0600 any more), else the
 * mode it has now (the user changed it since).
 */
function modeToRestore(c: ConnectionRecord, now: number | undefined): number {
  if (now === undefined) return c.originalMode ?? 0o644;
  const kept = now & 0o7777;
  if (c.originalMode === undefined) return kept;
  return kept === tokenFileMode(c.originalMode) ? c.originalMode : kept;
}

/** Gives the client back its own entries: the backup byte for byte, or the entries re-applied. */
export async function disconnectClient(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string },
): Promise<Result<DisconnectResult[], ContractError>> {
  const records = await ctx.records.read();
  const paths = new Set(targetLocations(ctx, input.client, input.path).map((l) => l.path));
  const connections = records.connections.filter(
    (c) => c.client === input.client && (input.path ? paths.has(c.file) : true),
  );
  if (connections.length === 0)
    return err({
      kind: 'not-found',
      message: `${input.client} is not connected through Warden`,
      remedy: 'nothing to disconnect',
    });
  const results: DisconnectResult[] = [];
  for (const c of connections) {
    const read = await readClientFile(input.client, c.file);
    if (!read.ok) return read;
    const current = read.value;
    const mode = modeToRestore(c, current?.mode);
    const currentSha = current ? sha256(current.text) : '';
    let result: DisconnectResult;
    if (currentSha === c.connectedSha256 || currentSha === c.originalSha256 || !current) {
      const original = await readFile(c.backup, 'utf8');
      if (sha256(original) !== c.originalSha256)
        return err({
          kind: 'conflict',
          message: `the backup ${c.backup} does not match the original file any more`,
          remedy: 'restore the entries by hand from the backup',
        });
      await writeClientFile(c.file, original, mode, false);
      result = {
        client: input.client,
        file: c.file,
        restored: 'backup',
        message: `restored the original file byte for byte from ${c.backup}`,
      };
    } else {
      const edits = c.entries.filter(
        (e) => JSON.stringify(valueAt(current.doc, e.keyPath)) === JSON.stringify(e.written),
      );
      const left = c.entries.filter((e) => !edits.includes(e));
      await writeClientFile(
        c.file,
        editText(
          current.text,
          edits.map((e) => ({ keyPath: e.keyPath, value: e.original })),
        ),
        mode,
        false,
      );
      result = {
        client: input.client,
        file: c.file,
        restored: 'entries',
        message: `the file changed since connect, so the original entries were put back with edits that keep the other changes (not byte for byte)${left.length ? `; left as they are now: ${left.map((e) => e.entryName).join(', ')}` : ''}; the original file is still at ${c.backup}`,
      };
    }
    await ctx.records.update((r) => {
      r.connections = r.connections.filter((x) => !(x.client === c.client && x.file === c.file));
    });
    if (c.transport === 'http')
      await ctx.tokens.revoke(c.client, 'disconnected', c.file, ctx.now());
    results.push(result);
  }
  return ok(results);
}
