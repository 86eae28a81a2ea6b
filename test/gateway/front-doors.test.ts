/**
 * Real MCP servers from npm reached by the SDK's real Client through both front doors:
 * `warden connect` over stdio (standalone and joining a running core) and Streamable HTTP.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { createCore } from '../../main/core/core';
import { ClientTokens } from '../../main/gateway/client-tokens';
import { startFrontDoors } from '../../main/gateway/front-doors';
import { sandboxRequired, sandboxStatus } from '../sandbox/harness';
import { tempDirEach } from '../helpers/temp-dir';
import { initializeRequest } from '../helpers/mcp-messages';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'bin/warden.js');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let home = '';
tempDirEach('warden-doors-', (d) => (home = d));

const status = await sandboxStatus();
const skip = !status.usable && !sandboxRequired;

/** Sandboxed, seeing only the installed packages (read-only), no network. */
function relayPolicy(extraRoots: string[] = []): Policy {
  const policy = defaultPolicy();
  for (const path of [join(root, 'node_modules'), ...extraRoots])
    policy.filesystem.roots.push({ path, access: 'read' });
  return policy;
}

async function addEverything(): Promise<void> {
  const core = await createCore({ wardenHome: home });
  await core.config.addServer({
    name: 'everything',
    launch: { command: process.execPath, args: [everything, 'stdio'] },
    policy: relayPolicy(),
    acknowledged: true,
  });
  await core.close();
}

function warden(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    env: { ...process.env, WARDEN_HOME: home },
    encoding: 'utf8',
  });
}

async function exercise(client: Client): Promise<void> {
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
  const echoed = await client.callTool({ name: 'echo', arguments: { message: 'through warden' } });
  expect(JSON.stringify(echoed.content)).toContain('through warden');
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
  expect(JSON.stringify(sum.content)).toContain('42');
}

describe.skipIf(skip)(
  `front doors with real sandboxed servers${skip ? ` (skipped: ${status.reason})` : ''}`,
  () => {
    it('stdio: warden connect relays a real server, every call is audited, verify passes then catches an edit', async () => {
      await addEverything();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'connect', 'everything'],
        env: { ...process.env, WARDEN_HOME: home },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      await client.connect(transport);
      await exercise(client);
      await client.close();

      const listed = warden('audit', 'list', '--kind', 'mcp.response', '--json');
      expect(listed.status).toBe(0);
      const { rows } = JSON.parse(listed.stdout) as {
        rows: { event: { method: string; tool?: string; durationMs: number } }[];
      };
      const calls = rows.filter((r) => r.event.method === 'tools/call');
      expect(calls.map((r) => r.event.tool).sort()).toEqual(['echo', 'get-sum']);
      for (const r of calls) expect(r.event.durationMs).toBeGreaterThan(0);

      const verified = warden('audit', 'verify');
      expect(verified.stderr).toBe('');
      expect(verified.status).toBe(0);

      const db = new Database(join(home, 'audit.db'));
      const target = db
        .prepare(
          "SELECT id FROM audit WHERE kind IN ('mcp.request', 'mcp.call') AND body LIKE '%through warden%' ORDER BY id LIMIT 1",
        )
        .get() as { id: number };
      db.prepare(
        "UPDATE audit SET body = replace(body, 'through warden', 'tampered') WHERE id = ?",
      ).run(target.id);
      db.close();
      const broken = warden('audit', 'verify');
      expect(broken.status).not.toBe(0);
      expect(broken.stdout + broken.stderr).toContain(`row ${target.id}`);
    });

    it('http: the Streamable HTTP front door needs the token, checks Origin, and relays a real server', async () => {
      await addEverything();
      const core = await createCore({ wardenHome: home });
      const doors = await startFrontDoors(core, { httpPort: 0 });
      const token = await new ClientTokens(home).issue('test', 'test');
      try {
        const url = doors.http.url('everything');
        const init = JSON.stringify(initializeRequest('x'));
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        expect((await fetch(url, { method: 'POST', headers, body: init })).status).toBe(401);
        const foreign = await fetch(url, {
          method: 'POST',
          headers: {
            ...headers,
            authorization: `Bearer ${token}`,
            origin: 'http://evil.example',
          },
          body: init,
        });
        expect(foreign.status).toBe(403);
        const tooBig = await fetch(url, {
          method: 'POST',
          headers: { ...headers, authorization: `Bearer ${token}` },
          body: 'x'.repeat(5 * 1024 * 1024),
        });
        expect(tooBig.status).toBe(413);

        const client = new Client({ name: 'e2e-http', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        await exercise(client);
        expect(core.supervisor.list().filter((i) => i.state.kind === 'running')).toHaveLength(1);
        await client.close();
      } finally {
        await doors.close();
        await core.close();
      }
    });

    it('http: server-filesystem with one read-only root, sandboxed, reads and is refused writes', async () => {
      const data = await mkdtemp(join(tmpdir(), 'warden-doors-data-'));
      await writeFile(join(data, 'hello.txt'), 'read me\n');
      const core = await createCore({ wardenHome: home });
      await core.config.addServer({
        name: 'files',
        launch: {
          command: process.execPath,
          args: [
            join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
            data,
          ],
        },
        policy: relayPolicy([data]),
        acknowledged: true,
      });
      const doors = await startFrontDoors(core, { httpPort: 0 });
      const token = await new ClientTokens(home).issue('test', 'test');
      try {
        const client = new Client({ name: 'e2e-files', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(doors.http.url('files')), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        const read = await client.callTool({
          name: 'read_text_file',
          arguments: { path: join(data, 'hello.txt') },
        });
        expect(JSON.stringify(read.content)).toContain('read me');
        const write = await client.callTool({
          name: 'write_file',
          arguments: { path: join(data, 'new.txt'), content: 'x' },
        });
        expect(write.isError).toBe(true);
        expect(core.supervisor.list().find((i) => i.server === 'files')?.backend).toBe('bwrap');
        await client.close();
        const calls = (
          await core.audit.query({ server: 'files', kind: 'mcp.response' })
        ).rows.filter(
          (r) =>
            (r.event.kind === 'mcp.response' || r.event.kind === 'mcp.call') &&
            r.event.method === 'tools/call',
        );
        expect(calls).toHaveLength(2);
      } finally {
        await doors.close();
        await core.close();
        await rm(data, { recursive: true, force: true });
      }
    });

    it('stdio joins a running core, so its instance belongs to that core', async () => {
      await addEverything();
      const core = await createCore({ wardenHome: home });
      const doors = await startFrontDoors(core, { httpPort: 0 });
      try {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [bin, 'connect', 'everything', '--client', 'joined'],
          env: { ...process.env, WARDEN_HOME: home },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'e2e-join', version: '1.0.0' });
        await client.connect(transport);
        await exercise(client);
        expect(core.supervisor.list().map((i) => i.client)).toContain('joined');
        await client.close();
        await expect
          .poll(() => core.supervisor.list().filter((i) => i.state.kind === 'running').length)
          .toBe(0);
      } finally {
        await doors.close();
        await core.close();
      }
    });
  },
);
