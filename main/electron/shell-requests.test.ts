import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ShellPlatform, createShellHandler, serveShellRequest } from './shell-requests';

function platform(overrides: Partial<ShellPlatform> = {}) {
  const calls: string[] = [];
  let clicker: (() => void) | undefined;
  const p: ShellPlatform = {
    notify: (n, onClick) => {
      calls.push(`notify ${n.title}: ${n.body}`);
      clicker = onClick;
    },
    setBadgeCount: (c) => void calls.push(`badge ${c}`),
    pickFolder: () => Promise.resolve('/home/u/projects'),
    pickSaveTarget: () => Promise.resolve(undefined),
    ...overrides,
  };
  return { p, calls, click: () => clicker?.() };
}

describe('desktop shell requests', () => {
  it('raises a notification whose click comes back with its tag', async () => {
    const { p, calls, click } = platform();
    const clicked: string[] = [];
    await serveShellRequest(
      { kind: 'notify', title: 'MCP Warden', body: 'net wants example.com:443', tag: 'grant:g1' },
      p,
      (t) => clicked.push(t),
    );
    expect(calls).toEqual(['notify MCP Warden: net wants example.com:443']);
    click();
    expect(clicked).toEqual(['grant:g1']);
  });

  it('sets the badge and answers the folder picker', async () => {
    const { p, calls } = platform();
    await serveShellRequest({ kind: 'setBadgeCount', count: 3 }, p, () => undefined);
    expect(calls).toEqual(['badge 3']);
    expect(await serveShellRequest({ kind: 'pickFolder' }, p, () => undefined)).toBe(
      '/home/u/projects',
    );
  });

  it('writes an export only where the user chose, and nothing when cancelled', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'warden-shell-'));
    try {
      const target = join(dir, 'audit.jsonl');
      const chosen = platform({
        pickSaveTarget: (name) => Promise.resolve(name === 'audit.jsonl' ? target : undefined),
      });
      expect(
        await serveShellRequest(
          { kind: 'saveFile', suggestedName: 'audit.jsonl', text: '{"id":1}\n' },
          chosen.p,
          () => undefined,
        ),
      ).toBe(target);
      expect(await readFile(target, 'utf8')).toBe('{"id":1}\n');
      const cancelled = platform();
      expect(
        await serveShellRequest(
          { kind: 'saveFile', suggestedName: 'x', text: 'y' },
          cancelled.p,
          () => undefined,
        ),
      ).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed request from the page', async () => {
    const { p } = platform();
    await expect(
      serveShellRequest({ kind: 'openExternal', url: 'https://evil.example' }, p, () => undefined),
    ).rejects.toThrow();
    await expect(
      serveShellRequest({ kind: 'setBadgeCount', count: -1 }, p, () => undefined),
    ).rejects.toThrow();
  });
});

describe('warden:shell handler', () => {
  it('serves a valid request and refuses a malformed one as invalid input', async () => {
    const { p } = platform();
    const handler = createShellHandler(p, () => undefined);
    expect(await handler({ kind: 'setBadgeCount', count: 2 })).toEqual({
      ok: true,
      value: undefined,
    });
    expect(await handler({ kind: 'openExternal', url: 'https://evil.example' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-input' },
    });
  });
});
