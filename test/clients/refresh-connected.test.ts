/**
 * Connecting a client file that is connected already brings Warden's own stdio entries to the
 * command this Warden starts (an older Warden wrote `node …/bin/warden.js connect`, which starts
 * slower than the shell front `bin/warden`), where the entries are still as Warden wrote them.
 * The user's own changes are left alone, and disconnect still gives the client its file back.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientId } from '../../app/clients/client-formats';
import type { WardenCommand } from '../../app/clients/warden-entry';
import { editText } from '../../main/clients/client-file';
import type { ClientsContext } from '../../main/clients/clients-context';
import {
  connectClient,
  disconnectClient,
  previewConnect,
} from '../../main/clients/connect-service';
import { applyImport } from '../../main/clients/import-service';
import { clientsStatus } from '../../main/clients/client-status';
import { describeClients } from '../../main/clients/clients-cli-text';
import { type Sandbox, makeSandbox } from './clients-fixture';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** The start command a newer Warden writes: the shell front, with the Node it hands over to. */
const front = (ctx: ClientsContext): WardenCommand => ({
  command: '/opt/warden/bin/warden',
  args: [],
  env: { ...ctx.warden.env, WARDEN_NODE: '/opt/node/bin/node' },
});

const cases: { client: ClientId; fixture: string; target: string; servers: string }[] = [
  {
    client: 'claude-desktop',
    fixture: 'claude-desktop/claude_desktop_config.json.fixture',
    target: '.config/Claude/claude_desktop_config.json',
    servers: 'mcpServers',
  },
  // Zed's legacy `command: { path, args }` form, with the keys Zed keeps beside the command.
  {
    client: 'zed',
    fixture: 'zed/settings.json.fixture',
    target: '.config/zed/settings.json',
    servers: 'context_servers',
  },
];

/** The entries `clients list` shows of the file at `path`, and those it flags as outdated. */
async function listed(ctx: ClientsContext, client: ClientId, path: string) {
  const status = await clientsStatus(ctx);
  const file = status.find((s) => s.client === client)?.files.find((f) => f.path === path);
  const servers = file?.servers ?? [];
  return {
    warden: servers.filter((s) => s.throughWarden).map((s) => s.entryName),
    outdated: servers.filter((s) => s.startCommandOutdated).map((s) => s.entryName),
    text: describeClients(status),
  };
}

/** Connects the fixture of `c` over stdio with the old command; returns its path and bytes. */
async function connectedWithOldCommand(c: (typeof cases)[number]) {
  const path = await box.place(c.fixture, c.target);
  const original = await readFile(path, 'utf8');
  await applyImport(box.ctx, { client: c.client, path });
  const connected = await connectClient(box.ctx, { client: c.client, path, transport: 'stdio' });
  expect(connected.ok).toBe(true);
  return { path, original, connected: await readFile(path, 'utf8') };
}

describe.each(cases)('$client', (c) => {
  it("rewrites Warden's entries to the current command, then disconnects to the same bytes", async () => {
    const { path, original, connected } = await connectedWithOldCommand(c);
    expect(connected).toContain('/opt/warden/bin/warden.js');
    const ctx = { ...box.ctx, warden: front(box.ctx) };
    // The list says which entries start the older command, and how to update them.
    expect((await listed(box.ctx, c.client, path)).outdated).toEqual([]);
    const before = await listed(ctx, c.client, path);
    expect(before.warden.length).toBeGreaterThan(0);
    expect(before.outdated).toEqual(before.warden);
    expect(before.text).toContain('with an older start command');
    expect(before.text).toContain(`warden clients connect ${c.client} --path ${path}`);

    const preview = await previewConnect(ctx, { client: c.client, path });
    expect(preview.ok).toBe(true);
    if (!preview.ok) return;
    expect(preview.value[0]!.transport).toBe('stdio');
    expect(preview.value[0]!.rewritten.length).toBeGreaterThan(0);
    expect(preview.value[0]!.rewritten.every((r) => r.updated === true)).toBe(true);
    expect(preview.value[0]!.diff).toMatch(/^-.*warden\.js/m);
    expect(preview.value[0]!.diff).toMatch(/^\+.*\/opt\/warden\/bin\/warden"/m);
    expect(await readFile(path, 'utf8')).toBe(connected);

    const refreshed = await connectClient(ctx, { client: c.client, path });
    expect(refreshed.ok).toBe(true);
    const after = await readFile(path, 'utf8');
    expect(after).not.toContain('warden.js');
    expect(after).toContain('"WARDEN_NODE"');
    // Only Warden's start command changed: the same entries, the rest of the file as it was.
    const servers = (text: string) =>
      Object.keys((parse(text) as Record<string, Record<string, unknown>>)[c.servers] ?? {});
    expect(servers(after)).toEqual(servers(connected));

    // Nothing is stale any more: the list flags nothing, and connecting again is refused as before.
    const now = await listed(ctx, c.client, path);
    expect(now.outdated).toEqual([]);
    expect(now.text).not.toContain('older start command');
    const again = await connectClient(ctx, { client: c.client, path });
    expect(!again.ok && again.error.kind).toBe('conflict');

    const done = await disconnectClient(ctx, { client: c.client, path });
    expect(done.ok && done.value[0]!.restored).toBe('backup');
    expect(await readFile(path, 'utf8')).toBe(original);
  });
});

describe('a connected file the user changed', () => {
  const c = cases[0]!;

  it("leaves an entry the user edited alone, and refreshes only Warden's own", async () => {
    const { path, connected } = await connectedWithOldCommand(c);
    const doc = parse(connected) as { mcpServers: Record<string, { args: string[] }> };
    const [edited, ...others] = Object.keys(doc.mcpServers);
    // The user added a flag to one of Warden's entries.
    const theirs = [...doc.mcpServers[edited!]!.args, '--max-message-bytes', '9'];
    await writeFile(
      path,
      editText(connected, [{ keyPath: ['mcpServers', edited!, 'args'], value: theirs }]),
    );
    const ctx = { ...box.ctx, warden: front(box.ctx) };
    expect((await listed(ctx, c.client, path)).outdated.sort()).toEqual([...others].sort());

    const preview = await previewConnect(ctx, { client: c.client, path });
    expect(preview.ok).toBe(true);
    if (!preview.ok) return;
    expect(preview.value[0]!.rewritten.map((r) => r.entryName).sort()).toEqual(others.sort());
    expect(preview.value[0]!.untouched.map((u) => u.entryName)).toContain(edited);

    expect((await connectClient(ctx, { client: c.client, path })).ok).toBe(true);
    const after = parse(await readFile(path, 'utf8')) as typeof doc;
    expect(after.mcpServers[edited!]!.args).toEqual(theirs);
    for (const name of others)
      expect(JSON.stringify(after.mcpServers[name])).not.toMatch(/warden\.js/);
  });

  it('keeps the other changes at disconnect, the file having moved on since connect', async () => {
    const { path, original } = await connectedWithOldCommand(c);
    const changed = (await readFile(path, 'utf8')).replace(/\{/, '{\n  "addedByUser": 1,');
    await writeFile(path, changed);
    const ctx = { ...box.ctx, warden: front(box.ctx) };
    expect((await connectClient(ctx, { client: c.client, path })).ok).toBe(true);

    const done = await disconnectClient(ctx, { client: c.client, path });
    expect(done.ok && done.value[0]!.restored).toBe('entries');
    const text = await readFile(path, 'utf8');
    expect((parse(text) as { addedByUser?: number }).addedByUser).toBe(1);
    expect(text).not.toContain('/opt/warden/bin/warden');
    expect((parse(text) as { mcpServers: unknown }).mcpServers).toEqual(
      (parse(original) as { mcpServers: unknown }).mcpServers,
    );
  });

  it('refuses, as before, a file connected already with nothing to refresh', async () => {
    const { path, connected } = await connectedWithOldCommand(c);
    const again = await connectClient(box.ctx, { client: c.client, path });
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.message).toMatch(/already connected through Warden/);
    expect(await readFile(path, 'utf8')).toBe(connected);
  });
});
