/** Invalid client files give one clear error naming the place, and change nothing anywhere. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientId } from '../../app/clients/client-formats';
import { MAX_CLIENT_FILE_BYTES, readClientFile } from '../../main/clients/client-file';
import { clientsStatus } from '../../main/clients/client-status';
import { describeClients } from '../../main/clients/clients-cli-text';
import { clientLocations } from '../../main/clients/client-locations';
import { connectClient, disconnectClient } from '../../main/clients/connect-service';
import { applyImport, previewImport } from '../../main/clients/import-service';
import { type Sandbox, makeSandbox } from './clients-fixture';

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cases: { client: ClientId; fixture: string; message: RegExp }[] = [
  {
    client: 'claude-desktop',
    fixture: 'invalid/claude_desktop_trailing_comma.json.fixture',
    message: /not valid JSON at line 4, column 3/,
  },
  {
    client: 'cursor',
    fixture: 'invalid/cursor_with_comment.json.fixture',
    message: /not valid JSON at line 2/,
  },
  {
    client: 'windsurf',
    fixture: 'invalid/windsurf_servers_array.json.fixture',
    message: /has "mcpServers" but not as an object/,
  },
  {
    client: 'vscode',
    fixture: 'invalid/vscode_unterminated.json.fixture',
    message: /not valid JSONC at line/,
  },
];

describe.each(cases)('$fixture', ({ client, fixture, message }) => {
  it('is refused with the place of the problem, and nothing changes', async () => {
    const path = await box.place(fixture, 'picked.json');
    const original = await readFile(path, 'utf8');
    for (const result of [
      await previewImport(box.ctx, { client, path }),
      await applyImport(box.ctx, { client, path }),
      await connectClient(box.ctx, { client, path, transport: 'stdio' }),
    ]) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.kind).toBe('invalid-input');
      expect(result.error.message).toMatch(message);
      expect(result.error.message).toContain(path);
      expect(result.error.remedy).toMatch(/changed nothing/);
    }
    expect(await readFile(path, 'utf8')).toBe(original);
    expect(box.ctx.config.listServers()).toEqual([]);
    expect((await box.ctx.records.read()).imports).toEqual([]);
    expect(await readdir(box.wardenHome)).not.toContain('backups');
  });
});

describe('missing files and states', () => {
  it('a project file that is also the user file is handled once', () => {
    const home = '/home/ada';
    const ctx = { home, platform: 'linux' as const, env: {}, cwd: home };
    expect(clientLocations('cursor', ctx).map((l) => l.path)).toEqual([`${home}/.cursor/mcp.json`]);
    expect(clientLocations('cursor', { ...ctx, cwd: `${home}/p` })).toHaveLength(2);
  });

  it('a client without a config says where it looked and how to pick a file', async () => {
    const r = await previewImport(box.ctx, { client: 'windsurf' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('not-found');
      expect(r.error.message).toContain(join(box.home, '.codeium', 'windsurf', 'mcp_config.json'));
      expect(r.error.remedy).toContain('--path');
    }
  });

  it('connect before import changes nothing; disconnect without connect says so', async () => {
    const path = await box.place('cursor/mcp.json.fixture', '.cursor/mcp.json');
    const original = await readFile(path, 'utf8');
    const r = await connectClient(box.ctx, { client: 'cursor', transport: 'stdio' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.remedy).toContain('warden import cursor');
    expect(await readFile(path, 'utf8')).toBe(original);
    const d = await disconnectClient(box.ctx, { client: 'cursor' });
    expect(d.ok).toBe(false);
  });

  it('Claude Desktop is never given a URL entry', async () => {
    const path = await box.place('claude-desktop/claude_desktop_config.json.fixture', 'c.json');
    await applyImport(box.ctx, { client: 'claude-desktop', path });
    const r = await connectClient(box.ctx, { client: 'claude-desktop', path, transport: 'http' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.remedy).toContain('--transport stdio');
  });

  it('connecting twice is refused until disconnect', async () => {
    const path = await box.place('zed/settings.json.fixture', '.config/zed/settings.json');
    await applyImport(box.ctx, { client: 'zed' });
    expect((await connectClient(box.ctx, { client: 'zed' })).ok).toBe(true);
    const again = await connectClient(box.ctx, { client: 'zed' });
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.kind).toBe('conflict');
    expect((await disconnectClient(box.ctx, { client: 'zed' })).ok).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(
      await readFile(join(import.meta.dirname, 'fixtures/zed/settings.json.fixture'), 'utf8'),
    );
  });
});

describe('what is not a client file', () => {
  // A server allowed to write to a project's folder could put one of these where a client's file
  // goes: reading it must neither wait for a writer nor take all the memory.
  const places: { name: string; make: (path: string) => void; message: RegExp }[] = [
    { name: 'a FIFO', make: (path) => mkfifo(path), message: /is not a regular file/ },
    {
      name: 'a link to /dev/zero',
      make: (path) => symlinkSync('/dev/zero', path),
      message: /is not a regular file/,
    },
    { name: 'a folder', make: (path) => mkdirSync(path), message: /is not a regular file/ },
    {
      name: 'a file over 8 MB',
      make: (path) => {
        writeFileSync(path, '{}');
        truncateSync(path, MAX_CLIENT_FILE_BYTES + 1);
      },
      message: /is larger than 8 MB/,
    },
  ];

  it.each(places)('$name is refused at once, and nothing changes', async ({ make, message }) => {
    const path = join(box.home, '.cursor', 'mcp.json');
    mkdirSync(dirname(path), { recursive: true });
    make(path);
    const read = await readClientFile('cursor', path);
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.error.message).toBe(`${path} ${message.source.replace(/\\/g, '')}`);
      expect(read.error.remedy).toMatch(/changed nothing/);
    }
    for (const result of [
      await previewImport(box.ctx, { client: 'cursor' }),
      await applyImport(box.ctx, { client: 'cursor' }),
      await connectClient(box.ctx, { client: 'cursor', transport: 'stdio' }),
    ]) {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(message);
    }
    expect(box.ctx.config.listServers()).toEqual([]);
    expect(await readdir(box.wardenHome)).not.toContain('backups');
  });
});

describe('the clients list', () => {
  it("shows a FIFO in a project as that file's error and still lists the rest", async () => {
    const user = join(box.home, '.cursor', 'mcp.json');
    const project = join(box.home, 'proj', '.cursor', 'mcp.json');
    mkdirSync(dirname(user), { recursive: true });
    writeFileSync(user, '{"mcpServers":{"one":{"command":"npx","args":["-y","mcp-one"]}}}\n');
    mkdirSync(dirname(project), { recursive: true });
    mkfifo(project);
    const status = await clientsStatus(box.ctx);
    const cursor = status.find((c) => c.client === 'cursor');
    expect(cursor?.files.find((f) => f.path === project)).toMatchObject({
      error: `${project} is not a regular file`,
      problem: 'is not a regular file',
      remedy: "replace it with Cursor's own config file, or remove it; Warden changed nothing",
    });
    expect(cursor?.files.find((f) => f.path === user)?.servers.map((s) => s.entryName)).toEqual([
      'one',
    ]);
    // `warden clients list` names the path once, above what is wrong with it and what to do.
    const text = describeClients(status);
    expect(text.split(project)).toHaveLength(2);
    expect(text).toContain(
      `  ${project}\n    this file is not a regular file\n    to fix: replace it with Cursor's own`,
    );
  });
});

describe('backups', () => {
  it('two files of one name connected at once keep a backup each', async () => {
    // The user's file and the project's have the same name, and the clock reads the same for both.
    const user = join(box.home, '.cursor', 'mcp.json');
    const project = join(box.home, 'proj', '.cursor', 'mcp.json');
    const texts = new Map([
      [user, '{ "mcpServers": { "one": { "command": "npx", "args": ["-y", "mcp-one"] } } }\n'],
      [project, '{"mcpServers":{"two":{"command":"npx","args":["-y","mcp-two"]}}}\n'],
    ]);
    for (const [path, text] of texts) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    for (const path of texts.keys()) {
      const imported = await applyImport(box.ctx, { client: 'cursor', path });
      expect(imported.ok && imported.value[0]!.imported).toHaveLength(1);
    }
    const connected = await connectClient(box.ctx, { client: 'cursor', transport: 'stdio' });
    expect(connected.ok).toBe(true);
    if (!connected.ok) return;
    expect(connected.value.map((c) => c.file).sort()).toEqual([...texts.keys()].sort());
    const backups = connected.value.map((c) => c.backup);
    expect(new Set(backups).size).toBe(2);
    for (const c of connected.value)
      expect(await readFile(c.backup, 'utf8')).toBe(texts.get(c.file));

    const done = await disconnectClient(box.ctx, { client: 'cursor' });
    expect(done.ok && done.value.map((d) => d.restored)).toEqual(['backup', 'backup']);
    for (const [path, text] of texts) expect(await readFile(path, 'utf8')).toBe(text);
  });
});
