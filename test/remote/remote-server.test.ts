/**
 * Remote servers end to end: a local Streamable HTTP server that requires a bearer header,
 * added with `warden servers add --url --header`, reached by the SDK's real Client through
 * `warden connect` and through the HTTP front door, with the network policy on the URL, argument
 * rules, credential redaction, and the header value kept out of config.json, the CLI's output
 * and the audit log.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../main/core/core';
import { ClientTokens } from '../../main/gateway/client-tokens';
import { startFrontDoors } from '../../main/gateway/front-doors';
import {
  LEAKED_TOKEN,
  type RemoteFixture,
  startRemoteFixture,
} from '../fixtures/remote-mcp-server';
import { tempDirEach } from '../helpers/temp-dir';
import { runWarden } from '../helpers/warden-bin';

const bin = join(import.meta.dirname, '../../bin/warden.js');
const SECRET = 'remote-header-value-5c1e9a77';

let home = '';
tempDirEach('warden-remote-', (d) => (home = d));
let fixture: RemoteFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const env = () => ({ ...(process.env as Record<string, string>), WARDEN_HOME: home });
const warden = (...args: string[]) => runWarden(args, env());

async function connect(name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'connect', name],
    env: env(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'remote-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A core with its front doors, and a client of server `name` through the HTTP one. */
async function viaFrontDoor(name: string, maxMessageBytes?: number) {
  const core = await createCore({
    wardenHome: home,
    ...(maxMessageBytes ? { maxMessageBytes } : {}),
  });
  const doors = await startFrontDoors(core, { httpPort: 0 });
  const token = await new ClientTokens(home).issue('test', 'test');
  const client = new Client({ name: 'remote-http', version: '1.0.0' });
  const headers = { authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(doors.http.url(name)), {
    requestInit: { headers },
  });
  const close = async () => {
    await client.close();
    await doors.close();
    await core.close();
  };
  return { core, client, connect: () => client.connect(transport), close };
}

/** `warden servers add NAME --url URL --header 'Authorization: Bearer TOKEN' FLAGS…`. */
const addRemote = (name: string, url: string, token: string, ...flags: string[]) =>
  warden(
    'servers',
    'add',
    name,
    '--url',
    url,
    '--header',
    `Authorization: Bearer ${token}`,
    ...flags,
  );

const text = (r: unknown) => JSON.stringify((r as { content: unknown }).content);

/** Every file of the state folder that may hold the header value, as raw bytes. */
async function stateBytes(): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const name of await readdir(home)) {
    if (name === 'config.json' || name.startsWith('audit.db'))
      out[name] = await readFile(join(home, name));
  }
  return out;
}

describe('remote servers', () => {
  it('warden connect: loopback refused without --allow-address, then tools/list and tools/call with rules and redaction applied; the header value is kept out of config.json, the output and the audit log', async () => {
    fixture = await startRemoteFixture(SECRET);
    const added = await addRemote(
      'remote1',
      fixture.url,
      SECRET,
      '--arg-rule',
      'echo:message:max-length=20',
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(fixture.url);
    expect(added.stdout).toContain('Authorization');
    expect(added.stdout).toContain('isolation:  remote (streamable-http)');
    expect(added.stdout + added.stderr).not.toContain(SECRET);

    // The URL's host is allowed, but it is a loopback address: refused until listed.
    await expect(connect('remote1')).rejects.toThrow(
      /loopback address.*--allow-address 127\.0\.0\.1/,
    );
    expect(fixture.refused).toBe(0);

    const edited = await warden('servers', 'edit', 'remote1', '--allow-address', '127.0.0.1');
    expect(edited.code).toBe(0);
    const client = await connect('remote1');
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(['big', 'echo', 'leak', 'whoami']);
      expect(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain(
        'echo: hi',
      );
      // The argument rule refuses the call before it reaches the remote server.
      const refused = client.callTool({
        name: 'echo',
        arguments: { message: 'a message longer than twenty characters' },
      });
      await expect(refused).rejects.toThrow(/max-length=20/);
      // A credential in a result, and the header value echoed back, are redacted for the client.
      const leaked = text(await client.callTool({ name: 'leak', arguments: {} }));
      expect(leaked).not.toContain(LEAKED_TOKEN);
      const whoami = text(await client.callTool({ name: 'whoami', arguments: {} }));
      expect(whoami).toContain('you sent');
      expect(whoami).not.toContain(SECRET);
    } finally {
      await client.close();
    }

    const status = await warden('servers', 'show', 'remote1', '--json');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('remote1');
    expect(status.stdout).not.toContain(SECRET);
    const list = await warden('audit', 'list', '--server', 'remote1', '--json');
    expect(list.stdout).toContain('tools/call');
    expect(list.stdout).not.toContain(SECRET);
    expect(list.stdout).not.toContain(LEAKED_TOKEN);
    for (const [name, bytes] of Object.entries(await stateBytes())) {
      expect(bytes.includes(SECRET), `${name} holds the header value`).toBe(false);
      expect(bytes.includes(LEAKED_TOKEN), `${name} holds the leaked token`).toBe(false);
    }
    const config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      servers: { remote?: { headers: { name: string; ref: string }[] } }[];
    };
    expect(config.servers[0]?.remote?.headers).toEqual([
      { name: 'Authorization', ref: 'remote1/header/authorization' },
    ]);
  });

  it('a wrong header is refused upstream and the client is told why; the value the server echoes stays out of the status and the log', async () => {
    fixture = await startRemoteFixture(SECRET);
    const wrong = 'wrong-header-value-9d2b41';
    const added = await addRemote('wrong', fixture.url, wrong, '--allow-address', '127.0.0.1');
    expect(added.code).toBe(0);
    await expect(connect('wrong')).rejects.toThrow(/refused Warden's credentials \(HTTP 401\)/);
    expect(fixture.refused).toBeGreaterThan(0);

    // The same through the HTTP front door, with the instance's status read while it is known.
    const door = await viaFrontDoor('wrong');
    try {
      await expect(door.connect()).rejects.toThrow(/HTTP 401/);
      const status = JSON.stringify(await door.core.handle('instances.list', {}));
      expect(status).toContain('HTTP 401');
      expect(status).not.toContain(wrong);
    } finally {
      await door.close();
    }
    for (const [name, bytes] of Object.entries(await stateBytes()))
      expect(bytes.includes(wrong), `${name} holds the header value`).toBe(false);
  });

  it('http front door: tools/list and tools/call of a remote server over Streamable HTTP', async () => {
    fixture = await startRemoteFixture(SECRET);
    const added = await addRemote('remote2', fixture.url, SECRET, '--allow-address', '127.0.0.1');
    expect(added.code).toBe(0);
    const door = await viaFrontDoor('remote2');
    try {
      await door.connect();
      const tools = await door.client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo');
      const echoed = await door.client.callTool({
        name: 'echo',
        arguments: { message: 'via http' },
      });
      expect(text(echoed)).toContain('echo: via http');
    } finally {
      await door.close();
    }
  });

  it('legacy SSE transport: tools/list and tools/call through warden connect', async () => {
    fixture = await startRemoteFixture(SECRET, 'sse');
    const added = await addRemote(
      'legacy',
      fixture.url,
      SECRET,
      '--transport',
      'sse',
      '--allow-address',
      '127.0.0.1',
    );
    expect(added.code).toBe(0);
    const client = await connect('legacy');
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
      const echoed = await client.callTool({ name: 'echo', arguments: { message: 'over sse' } });
      expect(text(echoed)).toContain('echo: over sse');
    } finally {
      await client.close();
    }
  });

  it('a reply over the message limit ends that upstream session alone, is audited, and the next call gets a new one', async () => {
    fixture = await startRemoteFixture(SECRET);
    const added = await addRemote('big', fixture.url, SECRET, '--allow-address', '127.0.0.1');
    expect(added.code).toBe(0);
    const door = await viaFrontDoor('big', 64 * 1024);
    try {
      await door.connect();
      const huge = door.client.callTool({ name: 'big', arguments: { bytes: 1024 * 1024 } });
      await expect(huge).rejects.toThrow(/over the limit of 65536 bytes/);
      await door.core.audit.flush();
      const hits = await door.core.audit.query({ server: 'big', kind: 'limit.hit' });
      expect(JSON.stringify(hits.rows)).toContain(
        'the remote server sent a message over the limit',
      );
      // The session goes on with a new upstream session.
      const echoed = await door.client.callTool({ name: 'echo', arguments: { message: 'again' } });
      expect(text(echoed)).toContain('echo: again');
    } finally {
      await door.close();
    }
  });
});
