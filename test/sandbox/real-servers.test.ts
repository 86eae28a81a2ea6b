/**
 * Real MCP servers under the default-deny filter: the npm servers the project tests with
 * (filesystem, everything, memory) and a Python stdio server (asyncio, subprocess, a thread),
 * each started through `warden exec` and driven by the SDK's client: initialize, list tools,
 * call one. Also the everyday tools servers shell out to: git, curl, ripgrep.
 */
import { lookup } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForNode } from '../helpers/bundle';
import { type Fixture, makeFixture, sandboxStatus, sh } from './harness';

const status = await sandboxStatus();
const modules = join(import.meta.dirname, '../../node_modules');
const server = (pkg: string) => join(modules, '@modelcontextprotocol', pkg, 'dist/index.js');
const cli = join(import.meta.dirname, '../../bin/warden.js');
// npx fetches through Warden's egress broker; the registry is the only place it can come from.
const registry = await lookup('registry.npmjs.org').catch(() => undefined);
const npxSkip = !existsSync(join(import.meta.dirname, '../../out/sandbox-init'))
  ? 'the build (out/) is missing: run npm run build'
  : registry === undefined
    ? 'registry.npmjs.org does not resolve from this host'
    : undefined;

describe.skipIf(!status.usable)('real servers under the sandbox filter', () => {
  let f: Fixture;
  let entry: string;
  let data: string;
  beforeAll(async () => {
    f = await makeFixture();
    entry = await bundleForNode(join(import.meta.dirname, 'fixtures/exec-entry.ts'));
    data = await mkdtemp(join(tmpdir(), 'warden-real-'));
    await writeFile(join(data, 'notes.txt'), 'hello from a root\n');
  });
  afterAll(async () => {
    await f.cleanup();
    await rm(data, { recursive: true, force: true });
    await rm(dirname(entry), { recursive: true, force: true });
  });

  async function session(flags: string[], command: string[], script = entry) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [script, ...(script === cli ? ['exec'] : []), ...flags, '--', ...command],
      env: f.hostEnv,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'real-servers', version: '1.0.0' });
    try {
      await client.connect(transport);
    } catch (e) {
      throw new Error(`${String(e)}\nstderr: ${stderr}`);
    }
    return { client, stderr: () => stderr };
  }
  const node = process.execPath;

  it('server-filesystem reads a declared root', async () => {
    const { client } = await session(
      ['--ro', modules, '--rw', data],
      [node, server('server-filesystem'), data],
    );
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('read_text_file');
    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(data, 'notes.txt') },
    });
    expect(JSON.stringify(read.content)).toContain('hello from a root');
    await client.close();
  }, 60_000);

  it('server-everything answers echo', async () => {
    const { client } = await session(['--ro', modules], [node, server('server-everything')]);
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi there' } });
    expect(JSON.stringify(echo.content)).toContain('hi there');
    await client.close();
  }, 60_000);

  it('server-memory stores an entity in the private /tmp', async () => {
    const { client } = await session(
      ['--ro', modules, '--set-env', 'MEMORY_FILE_PATH=/tmp/memory.jsonl'],
      [node, server('server-memory')],
    );
    const created = await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'warden', entityType: 'tool', observations: ['x'] }] },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const graph = await client.callTool({ name: 'read_graph', arguments: {} });
    expect(JSON.stringify(graph.content)).toContain('warden');
    await client.close();
  }, 60_000);

  it('a Python stdio server (asyncio, subprocess, thread) answers', async () => {
    const script = join(import.meta.dirname, 'fixtures/python-stdio-server.py');
    const { client } = await session(['--ro', dirname(script)], ['/usr/bin/python3', script]);
    const called = await client.callTool({ name: 'uname', arguments: {} });
    expect(JSON.stringify(called.content)).toContain('Linux thread');
    await client.close();
  }, 60_000);

  it.skipIf(npxSkip !== undefined)(
    `an npx-launched server installs from the registry through the broker and answers${npxSkip ? ` (skipped: ${npxSkip})` : ''}`,
    async () => {
      const address = registry?.address ?? '';
      const { client } = await session(
        ['--net', 'allowlist', '--allow', 'registry.npmjs.org', '--allow-address', address],
        ['npx', '-y', '@modelcontextprotocol/server-memory'],
        cli,
      );
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('read_graph');
      await client.close();
    },
    180_000,
  );

  it('git, curl and ripgrep run inside', async () => {
    // A new repository in a writable folder needs the exception (escape-workspace-new.test.ts).
    const run = await sh(
      ['--rw', data, '--unprotect', '.git'],
      `cd ${data} && git init -q r && cd r && echo needle > a.txt && git add a.txt && ` +
        `git -c user.name=w -c user.email=w@x commit -qm m && git log --oneline | wc -l && ` +
        `rg -l needle . && curl -sS file://${data}/notes.txt && ` +
        `curl -sS --max-time 5 http://example.com/ 2>&1 | head -c 60`,
      f.hostEnv,
    );
    expect(run.stdout).toContain('1\n./a.txt\nhello from a root\n');
    // No route out: curl fails to resolve or connect, it does not crash on a refused syscall.
    expect(run.stdout).toMatch(/curl: \((6|7)\)/);
  }, 60_000);
});
