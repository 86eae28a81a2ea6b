/**
 * End to end: a Claude Desktop-style config with a real npm MCP server (server-memory) is
 * imported and connected; a real MCP client then starts the server exactly as the rewritten
 * entry says, reaches it sandboxed through `warden connect`, and its calls land in the audit log.
 * Disconnect gives the file back byte for byte. Without a sandbox backend the test is skipped
 * with the reason, and fails under WARDEN_REQUIRE_SANDBOX=1; it never runs the server bare.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, it } from 'vitest';
import { clientsContext } from '../../main/clients/clients-context';
import { connectClient, disconnectClient } from '../../main/clients/connect-service';
import { applyImport, previewImport } from '../../main/clients/import-service';
import { createCore } from '../../main/core/core';
import { headlessSecretStore } from '../../main/secrets/headless-secret-store';
import { tempDirEach } from '../helpers/temp-dir';

const repo = join(import.meta.dirname, '../..');
const memoryServer = join(repo, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const bin = join(repo, 'bin/warden.js');

let root = '';
tempDirEach('warden-clients-e2e-', (d) => (root = d));

it('imports a Claude Desktop config, connects it, and a real client reaches the sandboxed server through the rewritten entry', async (t) => {
  const wardenHome = join(root, 'warden');
  const home = join(root, 'home');
  const memDir = join(root, 'memory');
  await mkdir(memDir, { recursive: true });
  await mkdir(home, { recursive: true });
  const configPath = join(home, 'claude_desktop_config.json');
  const original = `${JSON.stringify(
    {
      globalShortcut: '',
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [memoryServer],
          env: { MEMORY_FILE_PATH: join(memDir, 'memory.json') },
        },
      },
    },
    null,
    2,
  )}\n`;
  await writeFile(configPath, original);

  const core = await createCore({ wardenHome });
  const available = core.hostReport().backend;
  if (!available.available) {
    await core.close();
    const reason = `no sandbox backend here (${available.name}): ${core
      .hostReport()
      .checks.map((c) => c.detail)
      .join('; ')}`;
    if (process.env.WARDEN_REQUIRE_SANDBOX === '1')
      throw new Error(`WARDEN_REQUIRE_SANDBOX=1: ${reason}`);
    t.skip(reason);
    return;
  }
  expect(
    existsSync(join(repo, 'out/cli/warden.mjs')),
    'the CLI must be built (npm run build)',
  ).toBe(true);

  const ctx = clientsContext({
    wardenHome,
    config: core.config,
    locations: { home, platform: process.platform, env: process.env, cwd: home },
    secrets: headlessSecretStore(wardenHome),
  });
  const input = { client: 'claude-desktop' as const, path: configPath };
  const preview = await previewImport(ctx, input);
  expect(preview.ok).toBe(true);
  if (!preview.ok) return;
  const candidate = preview.value[0]!.candidates[0]!;
  expect(candidate.status).toBe('ready');
  expect(candidate.presets).toEqual(['node', 'memory']);
  expect(candidate.policy?.isolation).toBe('sandbox');
  expect(candidate.policy?.filesystem.roots).toContainEqual({ path: memDir, access: 'write' });
  expect(candidate.policy?.network.mode).toBe('none');
  expect(core.config.listServers()).toEqual([]);

  const imported = await applyImport(ctx, input);
  expect(imported.ok && imported.value[0]!.imported).toEqual([
    { id: '["mcpServers","memory"]', name: 'memory' },
  ]);
  const connected = await connectClient(ctx, { ...input, transport: 'stdio' });
  expect(connected.ok).toBe(true);
  await core.close();

  const rewritten = JSON.parse(await readFile(configPath, 'utf8')) as {
    mcpServers: { memory: { command: string; args: string[]; env: Record<string, string> } };
  };
  const entry = rewritten.mcpServers.memory;
  // The shell front (no core runs here, so it hands the session to bin/warden.js on this Node).
  expect(entry.command).toBe(join(repo, 'bin/warden'));
  expect(entry.args).toEqual(['connect', 'memory', '--client', 'claude-desktop']);
  expect(entry.env.WARDEN_NODE).toBe(process.execPath);
  expect(entry.env.WARDEN_HOME).toBe(wardenHome);

  // What Claude Desktop does with an entry: spawn it with its env on top of a default environment.
  const session = async (work: (client: Client) => Promise<void>) => {
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...getDefaultEnvironment(), ...entry.env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      await client.connect(transport);
      await work(client);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nwarden stderr:\n${stderr}`);
    } finally {
      await client.close();
    }
  };
  const remember = (client: Client, name: string) =>
    client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name, entityType: 'tool', observations: ['imported'] }] },
    });

  await session(async (client) => {
    const tools = await client.listTools();
    expect(tools.tools.map((x) => x.name)).toEqual(
      expect.arrayContaining(['create_entities', 'read_graph']),
    );
    const created = await remember(client, 'warden');
    expect(created.isError).toBeFalsy();
    const graph = await client.callTool({ name: 'read_graph', arguments: {} });
    expect(JSON.stringify(graph.content)).toContain('warden');
  });
  // Positive control: the server wrote through its one writable root.
  expect(await readFile(join(memDir, 'memory.json'), 'utf8')).toContain('warden');

  // The escape: without that root in the policy, the same write must be refused by the sandbox.
  const again = await createCore({ wardenHome });
  await again.config.updateServer('memory', (s) => ({
    policy: {
      ...s.policy,
      filesystem: { roots: s.policy.filesystem.roots.filter((r) => r.path !== memDir) },
    },
  }));
  await again.close();
  await session(async (client) => {
    const refused = await remember(client, 'escaped').catch((e: Error) => ({
      isError: true,
      content: e.message,
    }));
    expect(refused.isError).toBe(true);
    // The folder is simply not there inside the sandbox.
    expect(JSON.stringify(refused.content)).toMatch(/ENOENT|EROFS|EACCES|EPERM/);
  });
  expect(await readFile(join(memDir, 'memory.json'), 'utf8')).not.toContain('escaped');

  const audit = (kind: string) => {
    const r = spawnSync(process.execPath, [bin, 'audit', 'list', '--kind', kind, '--json'], {
      env: { ...process.env, WARDEN_HOME: wardenHome },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { rows: { event: Record<string, unknown> }[] }).rows.map(
      (row) => row.event,
    );
  };
  const running = audit('instance.lifecycle').filter((e) => e.state === 'running');
  expect(running.length).toBe(2);
  expect(running.every((e) => e.server === 'memory')).toBe(true);
  const calls = audit('mcp.response').filter((e) => e.method === 'tools/call');
  expect(calls.map((e) => e.tool).sort()).toEqual([
    'create_entities',
    'create_entities',
    'read_graph',
  ]);

  const off = await disconnectClient(
    clientsContext({
      wardenHome,
      config: (await createCore({ wardenHome })).config,
      locations: { home, platform: process.platform, env: process.env, cwd: home },
    }),
    input,
  );
  expect(off.ok && off.value[0]!.restored).toBe('backup');
  expect(await readFile(configPath, 'utf8')).toBe(original);
}, 60_000);
