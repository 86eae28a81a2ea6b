/**
 * Roots mediation end to end: the real server-filesystem, sandboxed, behind a client that declares
 * roots. It replaces its folders with the client's roots, so whatever Warden tells it is what it
 * will act on: a folder outside the policy must not reach it until the user grants it, and then
 * it must be able to read it.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Core, createCore } from '../../main/core/core';
import type { InstanceSession } from '../../main/supervisor/instance-session';
import { addFilesystemServer, repoModules } from '../helpers/filesystem-server';
import { sandboxRequired, sandboxStatus } from '../sandbox/harness';

const status = await sandboxStatus();
const skip = !status.usable && !sandboxRequired;

let home: string;
let data: string;
let outside: string;
let core: Core;
const open: Client[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-roots-'));
  data = await mkdtemp(join(tmpdir(), 'warden-roots-data-'));
  outside = await mkdtemp(join(tmpdir(), 'warden-roots-outside-'));
  await mkdir(join(data, 'sub'));
  await writeFile(join(data, 'sub', 'inside.txt'), 'inside the policy\n');
  await writeFile(join(outside, 'secret.txt'), 'outside the policy\n');
  await symlink(outside, join(data, 'link-out'));
  core = await createCore({ wardenHome: home, probeHost: false });
  await addFilesystemServer(core.config, 'files', data);
  // As its import preset has it: a path must lie within the server's folders. A folder granted
  // to one session counts as the server's for that session's calls.
  const ruled = await core.config.updateServer('files', (s) => ({
    policy: {
      ...s.policy,
      tools: { ...s.policy.tools, argRules: [{ tool: '*', arg: 'path', rule: 'within-roots' }] },
    },
  }));
  expect(ruled.ok).toBe(true);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await core?.close();
  for (const dir of [home, data, outside]) await rm(dir, { recursive: true, force: true });
});

const uri = (path: string) => pathToFileURL(path).href;

/**
 * The policy's folders a client root of /tmp holds: the test folder, and the repository's
 * node_modules (a folder of the policy too) when the checkout itself lies under /tmp.
 */
async function policyFoldersInTmp(): Promise<string[]> {
  const modules = await realpath(repoModules);
  return [data, ...(modules.startsWith('/tmp/') ? [modules] : [])];
}

/** A session of `files` from a client whose workspace folders are `roots`. */
async function session(roots: string[]) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const instance = await core.supervisor.open('files', serverSide, 'roots-test');
  const client = new Client(
    { name: 'roots-e2e', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  );
  let asked = 0;
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked++;
    return { roots: roots.map((r) => ({ uri: r, name: 'workspace' })) };
  });
  await client.connect(clientSide);
  open.push(client);
  return { client, instance, asked: () => asked };
}

async function allowed(client: Client): Promise<string[]> {
  const r = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
  const text = (r.content as { text: string }[])[0]!.text;
  return text.split('\n').slice(1).filter(Boolean);
}

async function read(client: Client, path: string): Promise<string> {
  // Refused either by the server (outside its folders) or before it, by the argument rule.
  const r = await client
    .callTool({ name: 'read_text_file', arguments: { path } })
    .catch((e: unknown) => ({ content: String(e) }));
  return JSON.stringify(r.content);
}

/** Waits for the server's view to settle on `expected` (it asks for roots after its handshake). */
async function expectAllowed(client: Client, expected: string[]) {
  await vi.waitFor(
    async () => {
      expect((await allowed(client).catch(() => [])).sort()).toEqual([...expected].sort());
    },
    { timeout: 30_000, interval: 200 },
  );
}

/** Waits until the server has applied the roots it was given `times` times (it says so on stderr). */
async function rootsApplied(instance: InstanceSession, times = 1) {
  const applied = /allowed directories from MCP roots|No valid root directories/;
  await vi.waitFor(
    () => expect(instance.view().stderrTail.filter((l) => applied.test(l)).length).toBe(times),
    { timeout: 30_000, interval: 100 },
  );
}

async function pendingFor(path: string) {
  return vi.waitFor(
    () => {
      const grant = core.folders.pending().find((g) => g.path === path);
      if (!grant) throw new Error(`no folder grant for ${path} yet`);
      return grant;
    },
    { timeout: 30_000, interval: 100 },
  );
}

describe.skipIf(skip)(
  `roots mediation with server-filesystem${skip ? ` (skipped: ${status.reason})` : ''}`,
  // Each test launches sandboxes, some twice; on a loaded machine that is slow, never wrong.
  { timeout: 120_000 },
  () => {
    it('a client root outside the policy is not shown; after "allow for this session" it is listed and readable', async () => {
      const { client } = await session([uri(outside), uri(join(data, 'sub'))]);
      await expectAllowed(client, [join(data, 'sub')]);
      expect(await read(client, join(outside, 'secret.txt'))).not.toContain('outside the policy');
      const grant = await pendingFor(outside);
      expect(grant).toMatchObject({ server: 'files', client: 'roots-e2e 1.0.0 (roots-test)' });
      expect(
        await core.handle('folders.decide', { id: grant.id, decision: 'allow-read-session' }),
      ).toMatchObject({ ok: true });
      await expectAllowed(client, [outside, join(data, 'sub')]);
      expect(await read(client, join(outside, 'secret.txt'))).toContain('outside the policy');
      // Read-only, for this session only: the stored policy is unchanged.
      const write = await client.callTool({
        name: 'write_file',
        arguments: { path: join(outside, 'new.txt'), content: 'x' },
      });
      expect(write.isError).toBe(true);
      expect(
        core.config.getServer('files')!.policy.filesystem.roots.map((r) => r.path),
      ).not.toContain(outside);
      // Another session of the same server does not get it.
      const other = await session([uri(outside)]);
      await rootsApplied(other.instance);
      await expectAllowed(other.client, [data]);
      expect(await read(other.client, join(outside, 'secret.txt'))).not.toContain(
        'outside the policy',
      );
    });

    it('"deny" leaves the folder out, and it is not asked again in that session', async () => {
      const { client, asked, instance } = await session([uri(outside)]);
      const grant = await pendingFor(outside);
      expect(await core.handle('folders.decide', { id: grant.id, decision: 'deny' })).toMatchObject(
        {
          ok: true,
        },
      );
      // The server keeps the folder it was started with; the client's folder never reaches it.
      await rootsApplied(instance);
      await expectAllowed(client, [data]);
      await client.sendRootsListChanged();
      await vi.waitFor(() => expect(asked()).toBe(2), { timeout: 30_000 });
      await rootsApplied(instance, 2);
      await expectAllowed(client, [data]);
      expect(core.folders.pending()).toEqual([]);
      expect(await read(client, join(outside, 'secret.txt'))).not.toContain('outside the policy');
    });

    it('a root escaping by "..", a symlink or odd encoding is resolved first; /tmp offers only the folder inside it', async () => {
      const name = basename(outside);
      const { client } = await session([
        uri(join(data, 'sub')),
        `file://${data}/../${name}`,
        `file://${data}/%2e%2e/${name}`,
        uri(join(data, 'link-out')),
        'file:///tmp',
        `file://${data}%2Fsub`,
        'https://example.com/repo',
      ]);
      // /tmp holds the policy's folder: that folder is offered, never the sandbox's private /tmp.
      await expectAllowed(client, [join(data, 'sub'), ...(await policyFoldersInTmp())]);
      // Three spellings of one folder outside: one grant, showing its real path.
      const grant = await pendingFor(outside);
      expect(core.folders.pending().map((g) => g.path)).toEqual([outside]);
      await core.handle('folders.decide', { id: grant.id, decision: 'deny' });
      await core.audit.flush();
      const rows = (await core.audit.query({ kind: 'roots.answered', limit: 10 })).rows;
      expect(rows.length).toBeGreaterThan(0);
      const answered = JSON.stringify(rows.map((r) => r.event));
      expect(answered).toContain('not a local folder');
      expect(answered).toContain('not a file: URI');
    });

    it('a client root file:///tmp never reaches the server as its private /tmp', async () => {
      const { client, instance } = await session(['file:///tmp']);
      await rootsApplied(instance);
      // Passed through, the server would list the sandbox's own empty /tmp as the client's folder.
      expect((await allowed(client)).sort()).toEqual((await policyFoldersInTmp()).sort());
      expect(core.folders.pending()).toEqual([]);
    });

    it('a client without the roots capability is left alone: the server keeps its own folders', async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await core.supervisor.open('files', serverSide, 'roots-test');
      const client = new Client({ name: 'no-roots', version: '1.0.0' });
      await client.connect(clientSide);
      open.push(client);
      expect(await allowed(client)).toEqual([data]);
      expect(core.folders.pending()).toEqual([]);
    });

    it('"always" saves the folder into the policy as a new revision', async () => {
      const before = core.config.getServer('files')!.revision;
      const { client } = await session([uri(outside)]);
      const grant = await pendingFor(outside);
      expect(
        await core.handle('folders.decide', { id: grant.id, decision: 'allow-read-always' }),
      ).toMatchObject({ ok: true });
      await expectAllowed(client, [outside]);
      const saved = core.config.getServer('files')!;
      expect(saved.revision).toBeGreaterThan(before);
      expect(saved.policy.filesystem.roots).toContainEqual({ path: outside, access: 'read' });
      expect(await readFile(join(home, 'config.json'), 'utf8')).toContain(outside);
    });
  },
);
