/**
 * Argument rules and credential scanning end to end: a sandboxed hostile server reached through
 * `warden connect`, with calls that try to leave the server's folders by `..` and by symlinks,
 * results that carry credentials, and a call that carries one of the user's secrets.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { bundleForNode } from '../helpers/bundle';
import { removeTree } from '../helpers/temp-dir';
import { sandboxRequired, sandboxStatus } from '../sandbox/harness';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'bin/warden.js');
const status = await sandboxStatus();
const skip = !status.usable && !sandboxRequired;

const TOKEN = 'tok-5e1f-8a9b-c0d2-guarded';
// A secret of the other server: the guarded one must never be sent it.
const OTHER = 'other-7c3d-91fe-deploy';
// A made-up token in GitHub's format (not a real credential).
const GITHUB_TOKEN = 'ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAz12';
let home: string;
let data: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-argrules-'));
  data = await mkdtemp(join(tmpdir(), 'warden-argrules-data-'));
  await mkdir(join(data, 'public'));
  await mkdir(join(data, 'private'));
  await writeFile(join(data, 'public/readme.txt'), 'public notes\n');
  await writeFile(join(data, 'public/key.txt'), `deploy key: ${GITHUB_TOKEN}\n`);
  await writeFile(join(data, 'private/secret.txt'), 'PRIVATE-CONTENT\n');
  await symlink(join(data, 'private/secret.txt'), join(data, 'public/link'));
  await symlink('/etc', join(data, 'public/etc'));
  const hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
  const core = await createCore({ wardenHome: home });
  const policy = defaultPolicy();
  policy.filesystem.roots.push(
    { path: data, access: 'read' },
    { path: dirname(hostile), access: 'read' },
  );
  policy.env.set.API_TOKEN = { kind: 'plain', value: TOKEN };
  const launch = { command: process.execPath, args: [hostile] };
  const open = structuredClone(policy);
  open.env.set.DEPLOY_KEY = { kind: 'plain', value: OTHER };
  await core.config.addServer({ name: 'open', launch, policy: open, acknowledged: true });
  const guarded = structuredClone(policy);
  guarded.tools.argRules = [
    { tool: 'read_file', arg: 'path', rule: 'within-roots' },
    { tool: 'read_file', arg: 'path', rule: `within=${join(data, 'public')}` },
  ];
  // Nobody answers approvals here: a call held for one is refused after a second.
  guarded.tools.approvalTimeoutSeconds = 1;
  await core.config.addServer({ name: 'guarded', launch, policy: guarded, acknowledged: true });
  await core.close();
});
afterAll(async () => {
  await removeTree(home);
  await removeTree(data);
});

async function connect(name: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'connect', name],
    env: { ...process.env, WARDEN_HOME: home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'arg-rules-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const readWith = (client: Client, path: string) =>
  client.callTool({ name: 'read_file', arguments: { path } });
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content);

function auditRows(server: string) {
  const listed = spawnSync(
    process.execPath,
    [bin, 'audit', 'list', '--server', server, '--json', '--limit', '500'],
    { env: { ...process.env, WARDEN_HOME: home }, encoding: 'utf8' },
  );
  return (JSON.parse(listed.stdout) as { rows: { kind: string; event: Record<string, unknown> }[] })
    .rows;
}

async function auditBytes(): Promise<Buffer> {
  const db = await readFile(join(home, 'audit.db'));
  const wal = await readFile(join(home, 'audit.db-wal')).catch(() => Buffer.alloc(0));
  return Buffer.concat([db, wal]);
}

describe.skipIf(skip)(
  `argument rules and credentials through the gateway${skip ? ` (skipped: ${status.reason})` : ''}`,
  () => {
    it('refuses ".." and symlink escapes before the server sees them; an allowed path passes', async () => {
      const client = await connect('guarded');
      const read = (path: string) => readWith(client, path);
      expect(text(await read(join(data, 'public/readme.txt')))).toContain('public notes');
      await expect(read(join(data, 'public/../../../etc/passwd'))).rejects.toThrow(
        /argument rule read_file:path:within-roots: argument "path" lies outside/,
      );
      await expect(read(join(data, 'public/etc/passwd'))).rejects.toThrow(
        /read_file:path:within-roots/,
      );
      await expect(read(join(data, 'public/link'))).rejects.toThrow(
        new RegExp(`read_file:path:within=${join(data, 'public')}`),
      );
      await expect(read(join(data, 'public/../private/secret.txt'))).rejects.toThrow(/within=/);
      await client.close();

      // The same reads reach the server without the rules: the rules, not the sandbox, refused.
      const open = await connect('open');
      expect(text(await readWith(open, join(data, 'public/link')))).toContain('PRIVATE-CONTENT');
      await open.close();

      const refused = auditRows('guarded').filter((r) => r.kind === 'tool.arg-refused');
      expect(refused).toHaveLength(4);
      expect(refused[0]!.event).toMatchObject({ tool: 'read_file', outcome: 'refused' });
    });

    it('redacts credentials in results for the client and keeps them out of the log', async () => {
      const client = await connect('guarded');
      const leaked = text(
        await client.callTool({ name: 'leak_env', arguments: { name: 'API_TOKEN' } }),
      );
      expect(leaked).toContain('«secret:API_TOKEN»');
      expect(leaked).not.toContain(TOKEN);
      const key = text(
        await client.callTool({
          name: 'read_file',
          arguments: { path: join(data, 'public/key.txt') },
        }),
      );
      expect(key).toContain('deploy key: «credential:github-token»');
      expect(key).not.toContain(GITHUB_TOKEN);
      await client.close();

      const found = auditRows('guarded').filter((r) => r.kind === 'credential.found');
      expect(found.map((r) => r.event.found)).toEqual(
        expect.arrayContaining([
          [{ kind: 'secret', name: 'API_TOKEN', count: 1 }],
          [{ kind: 'github-token', count: 1 }],
        ]),
      );
      const log = await auditBytes();
      expect(log.includes(TOKEN)).toBe(false);
      expect(log.includes(GITHUB_TOKEN)).toBe(false);
    });

    it("refuses a call whose arguments carry another server's secret", async () => {
      const client = await connect('guarded');
      await expect(
        client.callTool({ name: 'echo', arguments: { message: `send ${OTHER} away` } }),
      ).rejects.toThrow(
        /carries a secret Warden holds for you for another server \(secret DEPLOY_KEY\)/,
      );
      // Its own secret is not leaving: the call goes through (and the log keeps only its marker).
      expect(
        text(await client.callTool({ name: 'echo', arguments: { message: `own ${TOKEN}` } })),
      ).toContain('own «secret:API_TOKEN»');
      expect(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain(
        'hi',
      );
      await client.close();
      const rows = auditRows('guarded');
      expect(rows.some((r) => r.kind === 'credential.found' && r.event.where === 'arguments')).toBe(
        true,
      );
      const log = await auditBytes();
      expect(log.includes(TOKEN) || log.includes(OTHER)).toBe(false);
    });

    it('redacts a secret the server puts in a log message before the client sees it', async () => {
      const client = await connect('guarded');
      const messages: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        messages.push(n.params.data);
      });
      expect(
        text(await client.callTool({ name: 'log_env', arguments: { name: 'API_TOKEN' } })),
      ).toContain('logged');
      await expect.poll(() => messages.length).toBe(1);
      expect(messages).toEqual(['env API_TOKEN=«secret:API_TOKEN»']);
      await client.close();
      const found = auditRows('guarded').filter(
        (r) => r.kind === 'credential.found' && r.event.where === 'notification',
      );
      expect(found[0]?.event).toMatchObject({
        method: 'notifications/message',
        found: [{ kind: 'secret', name: 'API_TOKEN', count: 1 }],
      });
      expect((await auditBytes()).includes(TOKEN)).toBe(false);
    });

    it('holds a call carrying a credential for approval, refused when nobody answers', async () => {
      const client = await connect('guarded');
      await expect(
        client.callTool({ name: 'echo', arguments: { message: `use ${GITHUB_TOKEN}` } }),
      ).rejects.toThrow(/carrying credentials was not approved/);
      await client.close();
      const rows = auditRows('guarded');
      expect(rows.find((r) => r.kind === 'approval.requested')?.event).toMatchObject({
        reason: 'credentials',
        found: [{ kind: 'github-token', count: 1 }],
        args: { message: 'use «credential:github-token»' },
      });
      expect((await auditBytes()).includes(GITHUB_TOKEN)).toBe(false);
    });
  },
);
