/**
 * NODE_EXTRA_CA_CERTS moved aside by the shell front for `warden connect` (Node would read the
 * file before the server's launch): the connect process still trusts it where it opens TLS itself
 * (a remote server's upstream here, with a certificate only that file vouches for), and what it
 * starts gets the variable back.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type RemoteFixture, startRemoteFixture } from '../fixtures/remote-mcp-server';
import { addEverythingServer } from '../helpers/everything-server';
import { tempDirEach } from '../helpers/temp-dir';
import { testCertificate } from '../helpers/test-certificate';
import { runWarden } from '../helpers/warden-bin';

const root = join(import.meta.dirname, '../..');
const SECRET = 'extra-ca-bearer-3f9d2c41';

let home = '';
tempDirEach('warden-extra-ca-', (d) => (home = d));
let fixture: RemoteFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** The test's environment without NODE_OPTIONS (which turns the move aside off) or a CA file. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const e: Record<string, string> = {
    ...(process.env as Record<string, string>),
    WARDEN_HOME: home,
  };
  delete e.NODE_OPTIONS;
  delete e.NODE_EXTRA_CA_CERTS;
  return { ...e, ...extra };
}

/** A client of `warden connect NAME`, started as `command ARGS…`; with the connect's PID. */
async function connect(name: string, e: Record<string, string>, node = false) {
  const transport = new StdioClientTransport({
    command: node ? process.execPath : join(root, 'bin/warden'),
    args: [...(node ? [join(root, 'bin/warden.js')] : []), 'connect', name],
    env: e,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'extra-ca', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** The variables a process started with (its environment as exec'd, not as it is now). */
async function startEnv(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
}

async function secureRemote(): Promise<string> {
  const tls = await testCertificate(home);
  fixture = await startRemoteFixture(SECRET, 'streamable-http', tls);
  const added = await runWarden(
    [
      'servers',
      'add',
      'secure',
      '--url',
      fixture.url,
      '--header',
      `Authorization: Bearer ${SECRET}`,
      '--allow-address',
      '127.0.0.1',
    ],
    env(),
  );
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  return tls.cert;
}

describe.skipIf(process.platform !== 'linux')('NODE_EXTRA_CA_CERTS moved aside', () => {
  it('a remote server whose certificate only NODE_EXTRA_CA_CERTS vouches for is reached through the shell front, which started Node without the variable', async () => {
    const cert = await secureRemote();
    // Without the file, the certificate is refused: the file is what makes it trusted.
    await expect(connect('secure', env())).rejects.toThrow();
    expect(fixture!.refused).toBe(0);

    const { client, pid } = await connect('secure', env({ NODE_EXTRA_CA_CERTS: cert }));
    try {
      const started = await startEnv(pid);
      expect(started).toContain(`WARDEN_EXTRA_CA_CERTS=${pid}:${cert}`);
      expect(started.filter((v) => v.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo');
    } finally {
      await client.close();
    }

    // Node started directly reads the file itself, as it always has.
    const direct = await connect('secure', env({ NODE_EXTRA_CA_CERTS: cert }), true);
    try {
      expect(await startEnv(direct.pid)).toContain(`NODE_EXTRA_CA_CERTS=${cert}`);
      expect((await direct.client.listTools()).tools.map((t) => t.name)).toContain('echo');
    } finally {
      await direct.client.close();
    }
  });

  it('with NODE_OPTIONS set, the variable stays where it is', async () => {
    const cert = await secureRemote();
    const { client, pid } = await connect(
      'secure',
      env({ NODE_EXTRA_CA_CERTS: cert, NODE_OPTIONS: '--no-warnings' }),
    );
    try {
      const started = await startEnv(pid);
      expect(started).toContain(`NODE_EXTRA_CA_CERTS=${cert}`);
      expect(started.filter((v) => v.startsWith('WARDEN_EXTRA_CA_CERTS='))).toEqual([]);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    } finally {
      await client.close();
    }
  });

  it('a server that is passed NODE_EXTRA_CA_CERTS gets it back', async () => {
    const added = await addEverythingServer(env(), '--env', 'NODE_EXTRA_CA_CERTS');
    expect(added.code).toBe(0);
    const file = join(home, 'private-ca.pem');
    const { client, pid } = await connect('everything', env({ NODE_EXTRA_CA_CERTS: file }));
    try {
      expect(await startEnv(pid)).toContain(`WARDEN_EXTRA_CA_CERTS=${pid}:${file}`);
      const result = await client.callTool({ name: 'get-env', arguments: {} });
      const [first] = result.content as { text: string }[];
      const seen = JSON.parse(first?.text ?? '{}') as Record<string, string>;
      expect(seen.NODE_EXTRA_CA_CERTS).toBe(file);
      expect(seen.WARDEN_EXTRA_CA_CERTS).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
