/**
 * Every client format, from fixtures with comments, variables, remote entries and odd but valid
 * shapes: import → connect (stdio and HTTP; a project's file stdio only) → disconnect leaves the
 * file byte for byte as it was.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEntries } from '../../app/clients/client-entries';
import type { ClientId } from '../../app/clients/client-formats';
import { applyImport, previewImport } from '../../main/clients/import-service';
import {
  connectClient,
  disconnectClient,
  previewConnect,
} from '../../main/clients/connect-service';
import { type Sandbox, makeSandbox } from './clients-fixture';

interface Case {
  client: ClientId;
  fixture: string;
  target: string;
  /** Entries that become Warden servers. */
  imported: string[];
  /** Entries left as they are (extension-provided …); remote ones become remote servers. */
  untouched: string[];
  /**
   * Entries of `imported` whose script is not on this machine, so its folder cannot be granted:
   * shown in the preview with the folder to declare, refused at import, left as they are.
   */
  refused?: string[];
}

const cases: Case[] = [
  {
    client: 'claude-desktop',
    fixture: 'claude-desktop/claude_desktop_config.json.fixture',
    target: '.config/Claude/claude_desktop_config.json',
    imported: ['memory', 'filesystem', 'github', 'installer', 'admin'],
    untouched: [],
  },
  {
    client: 'claude-code',
    fixture: 'claude-code/claude.json.fixture',
    target: '.claude.json',
    imported: ['github', 'sqlite', 'sentry', 'linear'],
    untouched: [],
  },
  {
    client: 'claude-code',
    fixture: 'claude-code/mcp.json.fixture',
    target: 'proj/.mcp.json',
    imported: ['api', 'git'],
    untouched: [],
    refused: ['api'],
  },
  {
    client: 'cursor',
    fixture: 'cursor/mcp.json.fixture',
    target: '.cursor/mcp.json',
    imported: ['playwright', 'notes', 'weird name!', 'context7'],
    untouched: [],
    refused: ['notes'],
  },
  {
    client: 'vscode',
    fixture: 'vscode/mcp.json.fixture',
    target: 'proj/.vscode/mcp.json',
    imported: ['everything', 'perplexity', 'github-remote'],
    untouched: [],
  },
  {
    client: 'vscode',
    fixture: 'vscode/mcp.json.fixture',
    target: '.config/Code/User/mcp.json',
    imported: ['everything', 'perplexity', 'github-remote'],
    untouched: [],
  },
  {
    client: 'windsurf',
    fixture: 'windsurf/mcp_config.json.fixture',
    target: '.codeium/windsurf/mcp_config.json',
    imported: ['fetch', 'time', 'remote-docs'],
    untouched: [],
  },
  {
    client: 'zed',
    fixture: 'zed/settings.json.fixture',
    target: '.config/zed/settings.json',
    imported: ['memory-legacy', 'sequential', 'remote'],
    untouched: ['postgres-ext'],
  },
];

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** Comment lines, and the comment that ends a line (its entry may be rewritten around it). */
const commentLines = (text: string) =>
  text
    .split(/\r?\n/)
    .flatMap((l) =>
      /^\s*(\/\/|\/\*)/.test(l) ? [l] : /\/\/ remote/.test(l) ? [l.slice(l.lastIndexOf('//'))] : [],
    );

/** A project's file takes no gateway token (it would go wherever the project goes): stdio only. */
const transports = (c: Case) =>
  c.client === 'claude-desktop' || c.target.startsWith('proj/')
    ? (['stdio'] as const)
    : (['stdio', 'http'] as const);

describe.each(cases)('$client $target', (c) => {
  it.each(transports(c))(
    'imports, connects over %s and disconnects back to the same bytes',
    async (transport) => {
      const path = await box.place(c.fixture, c.target);
      const original = await readFile(path, 'utf8');
      const input = { client: c.client, path };

      const previews = await previewImport(box.ctx, input);
      expect(previews.ok).toBe(true);
      if (!previews.ok) return;
      const candidates = previews.value[0]!.candidates;
      expect(
        candidates
          .filter((x) => x.status === 'ready')
          .map((x) => x.entryName)
          .sort(),
      ).toEqual([...c.imported].sort());
      for (const x of candidates.filter((x) => x.status === 'ready')) {
        expect(x.commandLine).toBeTruthy();
        expect(x.policy?.isolation).toBe('sandbox');
      }
      expect(await readFile(path, 'utf8')).toBe(original);

      const imported = await applyImport(box.ctx, input);
      const kept = c.imported.filter((name) => !c.refused?.includes(name));
      expect(imported.ok && imported.value[0]!.imported.length).toBe(kept.length);
      expect(box.ctx.config.listServers()).toHaveLength(kept.length);
      for (const name of c.refused ?? []) {
        const id = candidates.find((x) => x.entryName === name)!.id;
        const skipped = imported.ok && imported.value[0]!.skipped.find((x) => x.id === id);
        expect(skipped && skipped.reason).toMatch(/outside every folder .* --ro \//);
      }

      const preview = await previewConnect(box.ctx, { ...input, transport });
      expect(preview.ok).toBe(true);
      if (!preview.ok) return;
      expect(preview.value[0]!.diff).toContain('+');
      expect(await readFile(path, 'utf8')).toBe(original);

      const connected = await connectClient(box.ctx, { ...input, transport });
      expect(connected.ok).toBe(true);
      if (!connected.ok) return;
      expect(await readFile(connected.value[0]!.backup, 'utf8')).toBe(original);
      const after = await readFile(path, 'utf8');
      expect(after).not.toBe(original);
      for (const line of commentLines(original)) expect(after).toContain(line.trim());
      if (original.includes('\r\n')) expect(allLinesEndInCr(after)).toBe(true);
      const doc = parse(after) as Record<string, unknown>;
      const entries = readEntries(c.client, doc);
      for (const name of kept) {
        const e = entries.find((x) => x.name === name);
        expect(e?.kind, name).toBe('warden');
        if (e?.kind === 'warden') expect(e.via).toBe(transport);
      }
      const before = readEntries(c.client, parse(original) as Record<string, unknown>);
      for (const name of [...c.untouched, ...(c.refused ?? [])])
        expect(entries.find((x) => x.name === name)).toEqual(before.find((x) => x.name === name));
      const { mcpServers: _a, servers: _b, context_servers: _c, projects: _d, ...others } = doc;
      const {
        mcpServers: _e,
        servers: _f,
        context_servers: _g,
        projects: _h,
        ...othersBefore
      } = parse(original) as Record<string, unknown>;
      expect(others).toEqual(othersBefore);

      const done = await disconnectClient(box.ctx, { client: c.client, path });
      expect(done.ok && done.value[0]!.restored).toBe('backup');
      expect(await readFile(path, 'utf8')).toBe(original);
    },
  );

  it('puts the original entries back with edits when the file changed after connect', async () => {
    const path = await box.place(c.fixture, c.target);
    const original = await readFile(path, 'utf8');
    await applyImport(box.ctx, { client: c.client, path });
    const connected = await connectClient(box.ctx, { client: c.client, path, transport: 'stdio' });
    expect(connected.ok).toBe(true);
    const changed = (await readFile(path, 'utf8')).replace(/\{/, '{\n  "addedByUser": 1,');
    await writeFile(path, changed);

    const done = await disconnectClient(box.ctx, { client: c.client, path });
    expect(done.ok && done.value[0]!.restored).toBe('entries');
    const text = await readFile(path, 'utf8');
    const doc = parse(text) as Record<string, unknown>;
    expect(doc.addedByUser).toBe(1);
    const restored = readEntries(c.client, doc);
    const expected = readEntries(c.client, parse(original) as Record<string, unknown>);
    expect(restored).toEqual(expected);
    for (const line of commentLines(original)) expect(text).toContain(line.trim());
  });
});

/** Whether every line of `text` but the last ends in a carriage return (CRLF line ends). */
function allLinesEndInCr(text: string): boolean {
  return text
    .split('\n')
    .slice(0, -1)
    .every((l) => l.endsWith('\r'));
}

describe('odd encodings', () => {
  it('a Windows-edited Claude Desktop file (byte order mark, CRLF) round-trips', async () => {
    const path = await box.place(
      'claude-desktop/claude_desktop_config.json.fixture',
      'AppData/Claude/claude_desktop_config.json',
    );
    const original = `\uFEFF${(await readFile(path, 'utf8')).replace(/\n/g, '\r\n')}`;
    await writeFile(path, original);
    const input = { client: 'claude-desktop' as const, path };
    expect((await applyImport(box.ctx, input)).ok).toBe(true);
    expect((await connectClient(box.ctx, input)).ok).toBe(true);
    const after = await readFile(path, 'utf8');
    expect(after.startsWith('\uFEFF{')).toBe(true);
    expect(allLinesEndInCr(after)).toBe(true);
    expect(
      readEntries('claude-desktop', parse(after.slice(1)) as Record<string, unknown>).every(
        (e) => e.kind === 'warden',
      ),
    ).toBe(true);
    expect((await disconnectClient(box.ctx, input)).ok).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(original);
  });
});
