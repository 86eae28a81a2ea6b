/**
 * The gateway end to end with real sandboxed servers: a real npm server and a hostile one of our
 * own, reached by the SDK's Client through `warden connect`, with every call in the audit log.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { createCore } from '../../main/core/core';
import { bundleForNode } from '../helpers/bundle';
import { addFilesystemServer } from '../helpers/filesystem-server';
import { sandboxRequired, sandboxStatus } from '../sandbox/harness';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'bin/warden.js');
const status = await sandboxStatus();
const skip = !status.usable && !sandboxRequired;

let home: string;
let data: string;
let hostile: string;
const TOKEN = 'tok-9f8e7d6c5b4a';

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-gw-'));
  data = await mkdtemp(join(tmpdir(), 'warden-gw-data-'));
  await writeFile(join(data, 'notes.txt'), 'hello from a read-only root\n');
  hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
  const core = await createCore({ wardenHome: home });
  const sandboxed = (extra: Partial<Policy> = {}): Policy => ({ ...defaultPolicy(), ...extra });
  await addFilesystemServer(core.config, 'files', data);
  const hostilePolicy = sandboxed();
  hostilePolicy.filesystem.roots.push({ path: dirname(hostile), access: 'read' });
  hostilePolicy.network = {
    ...hostilePolicy.network,
    mode: 'allowlist',
    allow: ['allowed.example'],
  };
  hostilePolicy.env.set.API_TOKEN = { kind: 'plain', value: TOKEN };
  await core.config.addServer({
    name: 'hostile',
    launch: { command: process.execPath, args: [hostile] },
    policy: hostilePolicy,
    acknowledged: true,
  });
  await core.close();
});
afterAll(async () => {
  if (!process.env.KEEP) await rm(home, { recursive: true, force: true });
  else console.log('HOME', home);
  await rm(data, { recursive: true, force: true });
});

async function connect(name: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'connect', name],
    env: { ...process.env, WARDEN_HOME: home, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sandboxed-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content);

describe.skipIf(skip)(
  `sandboxed servers through the gateway${skip ? ` (skipped: ${status.reason})` : ''}`,
  () => {
    it('server-filesystem with one read-only root: reads inside, refused outside and for writes', async () => {
      const { client } = await connect('files');
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']),
      );
      expect(
        text(
          await client.callTool({
            name: 'read_text_file',
            arguments: { path: join(data, 'notes.txt') },
          }),
        ),
      ).toContain('hello from a read-only root');
      const write = await client.callTool({
        name: 'write_file',
        arguments: { path: join(data, 'new.txt'), content: 'x' },
      });
      expect(write.isError).toBe(true);
      expect(text(write)).toMatch(/read-only file system|EROFS|denied/i);
      await client.close();
    });

    it('the hostile server is refused its escapes; calls are audited; the secret never reaches the log', async () => {
      await mkdir(join(homedir(), '.ssh'), { recursive: true });
      const { client } = await connect('hostile');
      const readHome = await client.callTool({
        name: 'read_file',
        arguments: { path: join(homedir(), '.ssh/id_ed25519') },
      });
      expect(text(readHome)).toMatch(/refused: ENOENT/);
      const out = await client.callTool({
        name: 'fetch_url',
        arguments: { url: 'http://not-allowed.example/' },
      });
      expect(text(out)).toMatch(/status 403|refused/);
      const leak = await client.callTool({ name: 'leak_env', arguments: { name: 'API_TOKEN' } });
      // The server sees its own secret; the client gets it redacted ...
      expect(text(leak)).toContain('value: «secret:API_TOKEN»');
      expect(text(leak)).not.toContain(TOKEN);
      await client.callTool({ name: 'echo', arguments: { message: `echo ${TOKEN}` } });
      await client.close();

      const listed = spawnSync(
        process.execPath,
        [bin, 'audit', 'list', '--server', 'hostile', '--json', '--limit', '200'],
        {
          env: { ...process.env, WARDEN_HOME: home },
          encoding: 'utf8',
        },
      );
      const rows = (
        JSON.parse(listed.stdout) as {
          rows: { kind: string; outcome: string; event: Record<string, unknown> }[];
        }
      ).rows;
      const network = rows.find((r) => r.kind === 'network.decision');
      expect(network?.event).toMatchObject({ host: 'not-allowed.example', decision: 'deny' });
      expect(
        rows.filter((r) => r.kind !== 'mcp.request' && r.event.method === 'tools/call'),
      ).toHaveLength(4);
      // ... but it never lands in the audit log, in any form.
      const raw = await readFile(join(home, 'audit.db'));
      const wal = await readFile(join(home, 'audit.db-wal')).catch(() => Buffer.alloc(0));
      expect(raw.includes(TOKEN) || wal.includes(TOKEN)).toBe(false);
      expect(JSON.stringify(rows)).toContain('«secret:API_TOKEN»');
    });

    it('a changed tool description between two runs is shown as drift and hidden', async () => {
      const first = await connect('hostile');
      expect((await first.client.listTools()).tools.map((t) => t.name)).toContain('echo');
      await first.client.close();
      const core = await createCore({ wardenHome: home });
      await core.config.updateServer('hostile', (s) => {
        s.policy.env.set.HOSTILE_DRIFT = { kind: 'plain', value: '1' };
        return { policy: s.policy };
      });
      await core.close();
      const second = await connect('hostile');
      expect((await second.client.listTools()).tools.map((t) => t.name)).not.toContain('echo');
      await expect(
        second.client.callTool({ name: 'echo', arguments: { message: 'x' } }),
      ).rejects.toThrow(/changed its definition/);
      await second.client.close();
    });

    it('two clients of the same server get two instances, each with its own private /tmp', async () => {
      const a = await connect('hostile');
      const b = await connect('hostile');
      expect(
        text(await a.client.callTool({ name: 'tmp_marker', arguments: { marker: 'a' } })),
      ).toContain('marker-a');
      const seenByB = text(
        await b.client.callTool({ name: 'tmp_marker', arguments: { marker: 'b' } }),
      );
      expect(seenByB).toContain('marker-b');
      expect(seenByB).not.toContain('marker-a');
      const pidA = text(await a.client.callTool({ name: 'pid', arguments: {} }));
      const pidB = text(await b.client.callTool({ name: 'pid', arguments: {} }));
      // Each instance is its own process (in its own pid namespace: compare the sandboxes' files).
      expect(pidA).toContain('text');
      expect(pidB).toContain('text');
      await a.client.close();
      await b.client.close();
    });

    it('SIGKILL of the core leaves no server process behind and the audit chain still verifies', async () => {
      const marker = `warden-kill-${Date.now()}`;
      const core = await createCore({ wardenHome: home });
      const policy = core.config.getServer('hostile')!.policy;
      await core.config.addServer({
        name: 'victim',
        launch: { command: process.execPath, args: [hostile, marker] },
        policy,
        acknowledged: true,
      });
      await core.close();
      const connector = spawn(process.execPath, [bin, 'connect', 'victim'], {
        env: { ...process.env, WARDEN_HOME: home },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      connector.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'k', version: '1' } } })}\n`,
      );
      await new Promise<void>((resolve) => connector.stdout.once('data', () => resolve()));
      const running = () => {
        try {
          return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim();
        } catch {
          return '';
        }
      };
      expect(running()).not.toBe('');
      connector.kill('SIGKILL');
      await expect.poll(running, { timeout: 5000 }).toBe('');
      const verified = spawnSync(process.execPath, [bin, 'audit', 'verify'], {
        env: { ...process.env, WARDEN_HOME: home },
        encoding: 'utf8',
      });
      expect(verified.status).toBe(0);
    });
  },
);
