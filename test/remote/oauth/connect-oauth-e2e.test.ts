/**
 * OAuth end to end through the CLI: a remote server behind the local authorization server is
 * signed in with `warden servers sign-in` (the test plays the browser: it follows the address
 * the command prints), then an MCP client calls it through `warden connect` and through the
 * HTTP front door with the stored token. The tokens are in the secret store only, never in
 * config.json, the audit log or the command's output; once the authorization server revokes
 * them, the client gets the "sign in again" error naming the command, and nothing opens a
 * browser.
 */
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../main/core/core';
import { ClientTokens } from '../../../main/gateway/client-tokens';
import { startFrontDoors } from '../../../main/gateway/front-doors';
import { oauthVault } from '../../../main/remote/oauth/oauth-vault';
import { runWarden } from '../../helpers/warden-bin';
import { followToLoopback, oauthEach } from './oauth-setup';

const bin = join(import.meta.dirname, '../../../bin/warden.js');

const t = oauthEach('warden-oauth-e2e-');

/** No opener on PATH: the printed address is the only way to the sign-in page. */
const env = () => ({ PATH: '/nonexistent', HOME: t.home, WARDEN_HOME: t.home });

async function addServer(url: string, ...flags: string[]): Promise<void> {
  const added = await runWarden(
    ['servers', 'add', 'notes', '--url', url, '--oauth', ...flags],
    env(),
  );
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  const config = JSON.parse(await readFile(join(t.home, 'config.json'), 'utf8')) as {
    servers: { name: string; remote?: { oauth?: unknown } }[];
  };
  expect(config.servers.find((s) => s.name === 'notes')?.remote?.oauth).toEqual({});
}

/** `warden servers sign-in notes`, with the test following the printed address as a browser. */
function signInThroughCli(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'servers', 'sign-in', 'notes'], { env: env() });
    let stdout = '';
    let stderr = '';
    let followed = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const address = /^\s+(http:\/\/\S+)$/m.exec(stderr)?.[1];
      if (address && !followed) {
        followed = true;
        void followToLoopback(new URL(address));
      }
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The end of each `warden connect` started, so that none outlives the test's home. */
const ended: Promise<unknown>[] = [];
afterEach(() => Promise.all(ended.splice(0)));

async function connect(): Promise<Client> {
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'connect', 'notes'],
    env: env(),
    stderr: 'pipe',
  });
  // A PassThrough that ends when the process's stderr closes, i.e. when it exited.
  const stderr = transport.stderr as PassThrough;
  ended.push(new Promise((resolve) => stderr.once('end', resolve)));
  stderr.resume();
  await client.connect(transport);
  return client;
}

async function stateText(): Promise<string> {
  const names = (await readdir(t.home)).filter(
    (n) => n === 'config.json' || n.startsWith('audit.db'),
  );
  const parts = await Promise.all(names.map((n) => readFile(join(t.home, n))));
  return parts.map((b) => b.toString('latin1')).join('\n');
}

describe('OAuth through warden connect', () => {
  it('signs in with the CLI, calls through warden connect and the HTTP front door with the stored token, and asks to sign in again once revoked', async () => {
    const { fixture, home } = t;
    await addServer(fixture.mcpUrl, '--allow-address', '127.0.0.1');

    const signedIn = await signInThroughCli();
    expect(signedIn.stderr).toContain(`${fixture.issuer}/authorize?`);
    expect(signedIn.stdout).toContain('Signed in to "notes"');
    expect(signedIn.code).toBe(0);
    expect(fixture.stats).toMatchObject({ registrations: 1, authorizations: 1, pkceVerified: 1 });

    const { tokens } = await oauthVault(t.store, 'notes').read();
    const access = tokens!.access_token;
    const refresh = tokens!.refresh_token!;

    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('whoami');
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.stringify(result.content)).toMatch(/client [A-Za-z0-9_-]+/);
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(fixture.stats.bearers.length).toBeGreaterThan(0);
    expect(fixture.stats.bearers.every((b) => b === access)).toBe(true);

    // The same through the HTTP front door.
    const core = await createCore({ wardenHome: home, probeHost: false });
    const doors = await startFrontDoors(core, { httpPort: 0 });
    try {
      const token = await new ClientTokens(home).issue('test', 'test');
      const viaHttp = new Client({ name: 'oauth-http', version: '1.0.0' });
      await viaHttp.connect(
        new StreamableHTTPClientTransport(new URL(doors.http.url('notes')), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const result = await viaHttp.callTool({ name: 'whoami', arguments: {} });
        expect(JSON.stringify(result.content)).toMatch(/client [A-Za-z0-9_-]+/);
      } finally {
        await viaHttp.close();
      }
    } finally {
      await doors.close();
      await core.close();
    }
    expect(fixture.stats.bearers.every((b) => b === access)).toBe(true);

    // Only the secret store holds them.
    expect(await readFile(join(home, 'secrets.json'), 'utf8')).toContain(access);
    const state = await stateText();
    expect(state).toContain('notes');
    for (const secret of [access, refresh]) {
      expect(state).not.toContain(secret);
      expect(signedIn.stdout + signedIn.stderr).not.toContain(secret);
    }

    // Revoked at the authorization server: the next session fails with the remedy, from its
    // first request on (the refresh is refused too), and nothing opened a browser.
    fixture.revokeAll();
    const refused = await connect().then(
      async (again) => {
        try {
          return JSON.stringify(await again.callTool({ name: 'whoami', arguments: {} }));
        } finally {
          await again.close();
        }
      },
      (e: unknown) => String(e),
    );
    expect(refused).toContain('sign-in');
    expect(refused).toContain('(run: warden servers sign-in notes)');
    expect(fixture.stats.authorizations).toBe(1);
    const record = await oauthVault(t.store, 'notes').read();
    expect(record.signInRequired).toBeDefined();
    expect(record.tokens).toBeUndefined();
  });

  it("the sign-in reaches the authorization server only under the server's network policy", async () => {
    // Loopback is not allowed to this server: neither discovery nor registration may reach it.
    await addServer(t.fixture.mcpUrl);
    const refused = await runWarden(['servers', 'sign-in', 'notes'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/loopback|--allow-address/);
    expect(t.fixture.stats).toMatchObject({ registrations: 0, authorizations: 0 });
    expect((await oauthVault(t.store, 'notes').read()).tokens).toBeUndefined();
  });
});
