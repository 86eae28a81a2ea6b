/**
 * Gateway tokens per client: revoking them (CLI and UI), and replacing the ones revoked because
 * another program held the gateway port, once the port is Warden's again. A replaced token is
 * written into the client's file where Warden's entry is still as Warden wrote it.
 */
import { clientFormats, isRecord } from '../../app/clients/client-formats';
import type { ClientId } from '../../app/clients/client-formats';
import type { TokenChange } from '../../app/contract/clients';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, err, ok } from '../../app/result';
import { editText, readClientFile, sha256, writeClientFile } from './client-file';
import { type ClientsContext, projectFolderOf } from './clients-context';
import { valueAt } from './stale-entry';

/**
 * Revokes the gateway tokens of `client` (one file when `path` is given); without a path, also
 * those that older server detail pages filed under the client's display name.
 */
export async function revokeClientTokens(
  ctx: ClientsContext,
  input: { client: ClientId; path?: string },
): Promise<Result<TokenChange[], ContractError>> {
  const why = 'revoked by the user';
  const revoked = await ctx.tokens.revoke(input.client, why, input.path, ctx.now());
  if (input.path === undefined)
    revoked.push(
      ...(await ctx.tokens.revoke(clientFormats[input.client].label, why, undefined, ctx.now())),
    );
  if (revoked.length === 0)
    return err({
      kind: 'not-found',
      message: `${input.client} has no active gateway token`,
      remedy: 'nothing to revoke; "warden clients list" shows the tokens',
    });
  return ok(
    revoked.map((t) => ({
      client: t.client,
      file: t.file,
      message: `token of ${t.file} revoked: the client is refused until it is connected again`,
    })),
  );
}

/** A copy of Warden's HTTP entry with `token` as its bearer token. */
function withToken(written: unknown, token: string): unknown {
  if (!isRecord(written) || !isRecord(written.headers)) return written;
  return { ...written, headers: { ...written.headers, Authorization: `Bearer ${token}` } };
}

/**
 * Gives every client file whose token was revoked because the port was taken a new token.
 * Call only while Warden's own gateway holds the port.
 */
export async function rotateRevokedTokens(ctx: ClientsContext): Promise<TokenChange[]> {
  const pending = (await ctx.tokens.list()).filter((t) => t.rotate === true);
  const records = await ctx.records.read();
  const changes: TokenChange[] = [];
  const done: string[] = [];
  for (const t of pending) {
    done.push(t.id);
    const c = records.connections.find(
      (x) => x.client === t.client && x.file === t.file && x.transport === 'http',
    );
    if (!c) continue;
    // Connected over HTTP by an older Warden: no new token goes into a project's file.
    const project = projectFolderOf(c.file, ctx.locations.home);
    if (project) {
      changes.push({
        client: c.client,
        file: c.file,
        message: `not given a new token: it is a file of the project folder ${project}, where a token would go wherever the project goes; disconnect it, then connect it with --transport stdio`,
      });
      continue;
    }
    const read = await readClientFile(c.client, c.file);
    if (!read.ok || !read.value) {
      changes.push({
        client: c.client,
        file: c.file,
        message: 'could not be read: connect it again',
      });
      continue;
    }
    const current = read.value;
    const token = await ctx.tokens.issue(c.client, c.file, ctx.now());
    const entries = c.entries.map((e) => ({ ...e, written: withToken(e.written, token) }));
    const edits = c.entries
      .map((e, i) => ({ e, next: entries[i]!.written }))
      .filter(
        ({ e }) => JSON.stringify(valueAt(current.doc, e.keyPath)) === JSON.stringify(e.written),
      )
      .map(({ e, next }) => ({ keyPath: e.keyPath, value: next }));
    const after = editText(current.text, edits);
    const note = await writeClientFile(c.file, after, current.mode, true);
    await ctx.records.update((r) => {
      const x = r.connections.find((y) => y.client === c.client && y.file === c.file);
      if (!x) return;
      x.entries = entries;
      if (x.connectedSha256 === sha256(current.text)) x.connectedSha256 = sha256(after);
    });
    changes.push({
      client: c.client,
      file: c.file,
      message: `new gateway token written (${edits.length} of ${c.entries.length} entries); restart the client to use it${note ? `; ${note}` : ''}`,
    });
  }
  await ctx.tokens.rotated(done);
  return changes;
}
