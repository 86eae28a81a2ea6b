/**
 * A client file that holds a Warden gateway token is the user's alone, where home folders are
 * 0755: `warden clients connect cursor --transport http` makes a 0644 `~/.cursor/mcp.json` 0600
 * (saying so), and another local user who could read it before cannot read it after; a token
 * replaced after the gateway port was taken does the same. Over stdio (no token) the mode stays.
 * Disconnected, the file gets its mode back, unless the user changed it meanwhile.
 * A project's file never gets a token: HTTP is refused there, and the default is stdio.
 */
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runClientsCommand, runImportCommand } from '../../main/clients/clients-cli';
import { type ClientsContext, projectFolderOf } from '../../main/clients/clients-context';
import { connectClient } from '../../main/clients/connect-service';
import { rotateRevokedTokens } from '../../main/clients/token-rotation';
import { type Core, createCore } from '../../main/core/core';
import { clientsContext } from '../../main/clients/clients-context';
import { captureIo } from '../helpers/capture-io';
import { asOtherUser, noOtherUser } from '../helpers/other-user';
import { tempDirEach } from '../helpers/temp-dir';
import { fakeHomeOverrides } from './clients-fixture';

const ENTRY = '{"mcpServers":{"one":{"command":"npx","args":["-y","mcp-one"]}}}\n';
const PROJECT_ENTRY = '{"mcpServers":{"two":{"command":"npx","args":["-y","mcp-two"]}}}\n';

let root = '';
let home: string;
let userFile: string;
let overrides: Partial<ClientsContext> & Pick<ClientsContext, 'locations'>;

tempDirEach('warden-token-mode-', (d) => (root = d));
beforeEach(async () => {
  home = join(root, 'home');
  userFile = join(home, '.cursor', 'mcp.json');
  const fake = fakeHomeOverrides(home);
  overrides = {
    ...fake,
    locations: fake.locations!,
    gatewayCheck: () => Promise.resolve({ kind: 'warden', port: 47821 }),
  };
  await placeOpen(userFile);
});

/** Writes the client file 0644 in folders others may enter, as on a host with 0755 homes. */
async function placeOpen(path: string, text = ENTRY): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, { mode: 0o644 });
  await chmod(path, 0o644);
  for (let d = dirname(path); d.startsWith(root); d = dirname(d)) await chmod(d, 0o755);
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** Imports and connects Cursor through the CLI, as the user would; what connect printed. */
async function connect(core: Core, ...args: string[]): Promise<{ code: number; out: string }> {
  await runImportCommand(['cursor', '--yes'], captureIo().io, core, overrides);
  const run = captureIo();
  const code = await runClientsCommand(['connect', 'cursor', ...args], run.io, core, overrides);
  return { code, out: run.out.stdout + run.out.stderr };
}

async function withCore<T>(fn: (core: Core) => Promise<T>): Promise<T> {
  const core = await createCore({ wardenHome: join(root, 'warden') });
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}

describe('a client file with a gateway token', () => {
  it('is made 0600 by connect over HTTP, with a note; stdio keeps its mode', async () => {
    await withCore(async (core) => {
      const http = await connect(core, '--transport', 'http', '--yes');
      expect(http.code, http.out).toBe(0);
      expect(await readFile(userFile, 'utf8')).toContain('"Authorization": "Bearer ');
      expect(await modeOf(userFile)).toBe(0o600);
      expect(http.out).toContain(
        `note: ${userFile} was mode 0644, open to other users; it is 0600 now, since it holds Warden's gateway token`,
      );
    });
    await placeOpen(join(home, 'other', '.cursor', 'mcp.json'));
    await withCore(async (core) => {
      const picked = join(home, 'other', '.cursor', 'mcp.json');
      await runImportCommand(
        ['cursor', '--path', picked, '--yes'],
        captureIo().io,
        core,
        overrides,
      );
      const run = captureIo();
      const args = ['connect', 'cursor', '--path', picked, '--transport', 'stdio', '--yes'];
      expect(await runClientsCommand(args, run.io, core, overrides), run.out.stderr).toBe(0);
      expect(await readFile(picked, 'utf8')).toContain('"connect"');
      expect(await modeOf(picked)).toBe(0o644);
      expect(run.out.stdout).not.toContain('note:');
    });
  });

  it.skipIf(noOtherUser !== undefined)(
    `cannot be read by another local user after connect over HTTP (${noOtherUser ?? 'as that user'})`,
    async () => {
      // The attack works before: the file and the folders above it are open to others.
      expect(asOtherUser(['cat', userFile])).toMatchObject({ status: 0, out: ENTRY });
      await withCore(async (core) => {
        expect((await connect(core, '--transport', 'http', '--yes')).code).toBe(0);
      });
      const read = asOtherUser(['cat', userFile]);
      expect(read.status).not.toBe(0);
      expect(read.out).toContain('Permission denied');
      expect(read.out).not.toContain('Bearer');
    },
  );

  it('gets its mode back on disconnect, unless the user changed it since', async () => {
    const disconnect = async (core: Core) => {
      const run = captureIo();
      const code = await runClientsCommand(['disconnect', 'cursor'], run.io, core, overrides);
      expect(code, run.out.stderr).toBe(0);
    };
    await withCore(async (core) => {
      expect((await connect(core, '--transport', 'http', '--yes')).code).toBe(0);
      expect(await modeOf(userFile)).toBe(0o600);
      await disconnect(core);
      expect(await readFile(userFile, 'utf8')).toBe(ENTRY);
      expect(await modeOf(userFile)).toBe(0o644);

      expect((await connect(core, '--transport', 'http', '--yes')).code).toBe(0);
      await chmod(userFile, 0o640);
      await disconnect(core);
      expect(await modeOf(userFile)).toBe(0o640);
    });
  });

  it('is made 0600 again when a revoked token is replaced in it', async () => {
    await withCore(async (core) => {
      expect((await connect(core, '--transport', 'http', '--yes')).code).toBe(0);
      const ctx = clientsContext({
        wardenHome: core.wardenHome,
        config: core.config,
        ...overrides,
      });
      await chmod(userFile, 0o644);
      await ctx.tokens.revokeAll('127.0.0.1:47821 was held by someone else');
      const before = await readFile(userFile, 'utf8');
      const changes = await rotateRevokedTokens(ctx);
      expect(changes).toHaveLength(1);
      expect(changes[0]!.message).toContain(`${userFile} was mode 0644, open to other users`);
      expect(await readFile(userFile, 'utf8')).not.toBe(before);
      expect(await modeOf(userFile)).toBe(0o600);
    });
  });
});

describe("a project's client file", () => {
  it("is told by its place, the home included but for Cursor's user file", () => {
    expect(projectFolderOf(join(home, 'p', '.zed', 'settings.json'), home)).toBe(join(home, 'p'));
    expect(projectFolderOf(join(home, '.mcp.json'), home)).toBe(home);
    expect(projectFolderOf(join(home, '.vscode', 'mcp.json'), home)).toBe(home);
    expect(projectFolderOf(join(home, '.cursor', 'mcp.json'), home)).toBeUndefined();
    expect(projectFolderOf(join(home, '.config', 'zed', 'settings.json'), home)).toBeUndefined();
    const cwd = process.cwd();
    expect(projectFolderOf('.vscode/mcp.json', home)).toBe(cwd);
  });

  it('gets no new token where an older Warden connected it over HTTP', async () => {
    const project = join(home, 'proj', '.mcp.json');
    await placeOpen(project, '{"mcpServers":{}}\n');
    await withCore(async (core) => {
      const ctx = clientsContext({
        wardenHome: core.wardenHome,
        config: core.config,
        ...overrides,
      });
      await ctx.tokens.issue('claude-code', project);
      await ctx.records.update((r) => {
        r.connections.push({
          client: 'claude-code',
          file: project,
          transport: 'http',
          connectedAt: new Date().toISOString(),
          backup: join(root, 'backup.json'),
          originalSha256: '',
          connectedSha256: '',
          entries: [],
        });
      });
      await ctx.tokens.revokeAll('127.0.0.1:47821 was held by someone else');
      const changes = await rotateRevokedTokens(ctx);
      expect(changes.map((c) => c.file)).toEqual([project]);
      expect(changes[0]!.message).toMatch(/^not given a new token: .*--transport stdio$/);
      expect(await readFile(project, 'utf8')).toBe('{"mcpServers":{}}\n');
      expect((await ctx.tokens.list()).filter((t) => !t.revokedAt)).toEqual([]);
    });
  });

  it('is refused a token over HTTP, and connected over stdio by default', async () => {
    const project = join(home, 'proj', '.cursor', 'mcp.json');
    await placeOpen(project, PROJECT_ENTRY);
    await withCore(async (core) => {
      await runImportCommand(['cursor', '--yes'], captureIo().io, core, overrides);
      const ctx = clientsContext({
        wardenHome: core.wardenHome,
        config: core.config,
        ...overrides,
      });
      const refused = await connectClient(ctx, { client: 'cursor', transport: 'http' });
      expect(refused).toMatchObject({
        ok: false,
        error: {
          kind: 'invalid-input',
          message: `${project} is a file of the project folder ${join(home, 'proj')}: Warden does not write a gateway token there, where it would go wherever the project goes (a commit, say)`,
          remedy: `connect it with --transport stdio (its entries then hold no token), or connect only your user file over HTTP (--path ${userFile}); Warden changed nothing`,
        },
      });
      expect(await readFile(project, 'utf8')).toBe(PROJECT_ENTRY);
      expect(await readFile(userFile, 'utf8')).toBe(ENTRY);

      const connected = await connectClient(ctx, { client: 'cursor' });
      expect(connected.ok && connected.value.map((c) => [c.file, c.transport])).toEqual([
        [userFile, 'http'],
        [project, 'stdio'],
      ]);
      expect(await readFile(project, 'utf8')).not.toContain('Bearer');
      expect(await modeOf(project)).toBe(0o644);
      expect(await modeOf(userFile)).toBe(0o600);
    });
  });
});
