/**
 * End to end over HTTP: a Cursor config with a real npm server (server-everything) and a literal
 * token is imported (the token goes to the secret store, not config.json), connected with the
 * Streamable HTTP URL and bearer token, and a real MCP client reaches the sandboxed server through
 * the rewritten entry: the server sees the token, the audit log only its marker. Without a
 * sandbox backend the test is skipped with the reason (a failure under WARDEN_REQUIRE_SANDBOX=1).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it } from 'vitest';
import { clientsContext } from '../../main/clients/clients-context';
import { connectClient, disconnectClient } from '../../main/clients/connect-service';
import { applyImport } from '../../main/clients/import-service';
import { createCore } from '../../main/core/core';
import { startFrontDoors } from '../../main/gateway/front-doors';
import { headlessSecretStore } from '../../main/secrets/headless-secret-store';
import { tempDirEach } from '../helpers/temp-dir';

const repo = join(import.meta.dirname, '../..');
const everything = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOKEN = 'sk-test-0123456789abcdefABCDEF';

let root = '';
tempDirEach('warden-clients-http-', (d) => (root = d));

it('a Cursor entry rewritten to the HTTP URL reaches the sandboxed server; its secret stays out of config and audit', async (t) => {
  const wardenHome = join(root, 'warden');
  const home = join(root, 'home');
  await mkdir(join(home, '.cursor'), { recursive: true });
  const file = join(home, '.cursor', 'mcp.json');
  const original = `{
    "mcpServers": {
        "everything": {
            "command": ${JSON.stringify(process.execPath)},
            "args": [${JSON.stringify(everything)}, "stdio"],
            "env": { "API_TOKEN": "${TOKEN}", "MODE": "demo" }
        },
        "docs": { "url": "https://docs.example.com/mcp" }
    }
}
`;
  await writeFile(file, original);

  const core = await createCore({ wardenHome });
  const backend = core.hostReport().backend;
  if (!backend.available) {
    await core.close();
    const reason = `no sandbox backend here (${backend.name})`;
    if (process.env.WARDEN_REQUIRE_SANDBOX === '1')
      throw new Error(`WARDEN_REQUIRE_SANDBOX=1: ${reason}`);
    t.skip(reason);
    return;
  }
  const doors = await startFrontDoors(core, { httpPort: 0 });
  try {
    const port = Number(new URL(doors.http.url('x')).port);
    const ctx = clientsContext({
      wardenHome,
      config: core.config,
      locations: { home, platform: process.platform, env: process.env, cwd: home },
      secrets: headlessSecretStore(wardenHome),
      gatewayPort: port,
    });
    const imported = await applyImport(ctx, { client: 'cursor' });
    expect(imported.ok && imported.value[0]!.imported.map((i) => i.name)).toEqual([
      'everything',
      'docs',
    ]);
    expect(core.config.getServer('docs')?.remote?.url).toBe('https://docs.example.com/mcp');
    await core.config.flush();
    expect(await readFile(join(wardenHome, 'config.json'), 'utf8')).not.toContain(TOKEN);
    expect(await readFile(join(wardenHome, 'secrets.json'), 'utf8')).toContain(TOKEN);
    expect(core.config.getServer('everything')?.policy.isolation).toBe('sandbox');

    const connected = await connectClient(ctx, { client: 'cursor' });
    expect(connected.ok && connected.value[0]!.transport).toBe('http');
    const written = JSON.parse(await readFile(file, 'utf8')) as {
      mcpServers: { everything: { url: string; headers: Record<string, string> }; docs: unknown };
    };
    // The remote entry goes through the gateway too.
    expect(written.mcpServers.docs).toMatchObject({ url: `http://127.0.0.1:${port}/mcp/docs` });
    const entry = written.mcpServers.everything;
    expect(entry.url).toBe(`http://127.0.0.1:${port}/mcp/everything`);
    // A token of its own, known to the gateway; not shown in the diff.
    expect(entry.headers.Authorization).toMatch(/^Bearer [A-Za-z0-9_-]{43}$/);
    expect(await ctx.tokens.check(entry.headers.Authorization!.slice(7))).toBe(true);
    expect(connected.ok && connected.value[0]!.diff).not.toContain(entry.headers.Authorization);

    const client = new Client({ name: 'cursor-like', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), {
        requestInit: { headers: entry.headers },
      }),
    );
    try {
      const env = await client.callTool({ name: 'get-env', arguments: {} });
      const text = JSON.stringify(env.content);
      // The server has its secret; the client sees it redacted.
      expect(text).toContain('«secret:API_TOKEN»');
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('demo');
      // A call that carries the secret: the audit log must keep only its marker.
      const echoed = await client.callTool({
        name: 'echo',
        arguments: { message: `via http ${TOKEN}` },
      });
      expect(JSON.stringify(echoed.content)).toContain('via http');
    } finally {
      await client.close();
    }

    const off = await disconnectClient(ctx, { client: 'cursor' });
    expect(off.ok && off.value[0]!.restored).toBe('backup');
    expect(await readFile(file, 'utf8')).toBe(original);
  } finally {
    await doors.close();
    await core.close();
  }
  const audit = (
    await Promise.all(
      ['audit.db', 'audit.db-wal'].map((f) =>
        readFile(join(wardenHome, f)).then(
          (b) => b.toString('latin1'),
          () => '',
        ),
      ),
    )
  ).join('');
  expect(audit).toContain('get-env');
  expect(audit).toContain('secret:API_TOKEN');
  expect(audit).not.toContain(TOKEN);
}, 60_000);
