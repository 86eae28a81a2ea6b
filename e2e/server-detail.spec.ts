/**
 * The server detail screen against a real `warden serve`: "Try it" calls a tool through the
 * gateway (audited under its own client name), and a copied client snippet, stdio or HTTP, works
 * with a real MCP client. A bearer token is made only when copied: looking at the screen makes
 * none, and none reaches the page.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from '@playwright/test';
import { expect, netToolSeed, processEnv, test as base, wardenCli } from './fixtures';
import { openConfirmed, resultText, snap, snapBoth } from './flows/flow-app';
import { SNIPPET_TOKEN } from '../app/contract/server-detail';

/** The clients of the live gateway tokens that snippets copied from the control panel made. */
async function snippetTokenClients(home: string): Promise<string[]> {
  const text = await readFile(join(home, 'gateway-tokens.json'), 'utf8').catch(() => '');
  const file = (text ? JSON.parse(text) : { tokens: [] }) as {
    tokens: { client: string; file: string; revokedAt?: string }[];
  };
  return file.tokens
    .filter((t) => t.file.startsWith('a snippet copied') && !t.revokedAt)
    .map((t) => t.client);
}

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([netToolSeed(netToolBundle, 'net')]);
  },
});

async function openDetail(page: Page, url: string) {
  const row = await openConfirmed(page, url, 'net');
  // Starting it here lists (and pins) its tools.
  await row.getByRole('button', { name: 'Start net' }).click();
  await expect(row.locator('[data-run-state]')).toHaveText('Ready', { timeout: 30_000 });
  await row.getByRole('button', { name: 'Details of net' }).click();
  await expect(page.getByRole('heading', { name: 'net', exact: true })).toBeVisible();
}

test('Try it calls a tool through the gateway, audited as Warden Try it', async ({
  page,
  warden,
}, testInfo) => {
  await openDetail(page, warden.url);
  const echo = page.locator('[data-tool="echo"]');
  await expect(echo).toContainText('Echoes its input');
  await expect(echo).toContainText('read-only');
  await echo.getByRole('button', { name: 'Try it echo' }).click();
  const form = page.getByRole('form', { name: 'Try echo' });
  await form.getByLabel('message').fill('tried from the detail screen');
  await form.getByRole('button', { name: 'Call echo' }).click();
  await expect(form.locator('[data-try-result]')).toContainText('tried from the detail screen', {
    timeout: 30_000,
  });
  await expect(form.locator('[data-try-result]')).toContainText('ok');
  await snap({ page, testInfo }, 'detail-try-it');

  // The call ran in its own instance, listed under the client name "Warden Try it", and the
  // audit log has the call under that instance.
  const tryIt = page.locator('[data-instance]', { hasText: 'Warden Try it' });
  await expect(tryIt).toHaveCount(1);
  const instance = await tryIt.getAttribute('data-instance');
  const out = await wardenCli(warden.home, ['audit', 'list', '--kind', 'mcp.request', '--json']);
  const rows = (
    JSON.parse(out) as { rows: { instance: string | null; event: { tool?: string } }[] }
  ).rows;
  expect(rows.filter((r) => r.event.tool === 'echo').map((r) => r.instance)).toContain(instance);
});

test('a copied client snippet works with a real MCP client, over stdio and over HTTP', async ({
  page,
  context,
  warden,
}, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: warden.origin });
  await openDetail(page, warden.url);
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  // The stdio command is one line, cut short on screen: all of it is there on hover.
  const stdio = page.locator('[data-snippet="stdio"]');
  await expect(stdio).toHaveAttribute('title', /\/bin\/warden connect net$/);

  // Claude Desktop takes a stdio command: `warden connect net`.
  await page.getByLabel('Config entry for').selectOption('claude-desktop');
  await page.getByRole('button', { name: 'Copy Claude Desktop config entry' }).click();
  const desktop = JSON.parse(await clipboard()) as {
    mcpServers: { net: { command: string; args: string[]; env?: Record<string, string> } };
  };
  const entry = desktop.mcpServers.net;
  expect(entry.args).toContain('connect');
  const stdioClient = new Client({ name: 'snippet-stdio', version: '1' });
  await stdioClient.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...processEnv(), ...entry.env },
      stderr: 'pipe',
    }),
  );
  try {
    const r = await stdioClient.callTool({ name: 'echo', arguments: { message: 'via stdio' } });
    expect(resultText(r)).toBe('via stdio');
  } finally {
    await stdioClient.close();
  }

  // Claude Code takes the HTTP URL with a bearer token, made only when the entry is copied.
  await page.getByLabel('Config entry for').selectOption('claude-code');
  await page.getByRole('radio', { name: 'HTTP' }).check();
  const shown = page.locator('[data-snippet-json="claude-code:http"]');
  await expect(shown).toContainText(`Bearer ${SNIPPET_TOKEN}`);
  await snap({ page, testInfo }, 'detail-snippets');
  await snapBoth(page, page.locator('.snippets'), 'detail-snippets-part', testInfo);
  expect(await snippetTokenClients(warden.home)).toEqual([]);
  await page.getByRole('button', { name: 'Copy Claude Code config entry' }).click();
  // The copy waits for the core to make the token.
  await expect.poll(clipboard).toContain('Bearer ');
  const code = JSON.parse(await clipboard()) as {
    mcpServers: { net: { type: string; url: string; headers: Record<string, string> } };
  };
  // The copied entry carries a token of its own for that client, never shown on screen.
  const token = /^Bearer ([A-Za-z0-9_-]{20,})$/.exec(
    code.mcpServers.net.headers.Authorization ?? '',
  )?.[1];
  expect(token).toBeDefined();
  await expect(shown).not.toContainText(token!);
  expect(await snippetTokenClients(warden.home)).toEqual(['claude-code']);
  // A second copy in this run gives the same token, not one more.
  await page.getByRole('button', { name: 'Copy Claude Code config entry' }).click();
  await expect.poll(clipboard).toContain(token!);
  expect(await snippetTokenClients(warden.home)).toEqual(['claude-code']);
  const httpClient = new Client({ name: 'snippet-http', version: '1' });
  await httpClient.connect(
    new StreamableHTTPClientTransport(new URL(code.mcpServers.net.url), {
      requestInit: { headers: code.mcpServers.net.headers },
    }),
  );
  try {
    const r = await httpClient.callTool({ name: 'echo', arguments: { message: 'via http' } });
    expect(resultText(r)).toBe('via http');
  } finally {
    await httpClient.close();
  }
  // Revoking the client's tokens revokes the copied one too.
  await wardenCli(warden.home, ['clients', 'revoke', 'claude-code']);
  expect(await snippetTokenClients(warden.home)).toEqual([]);
  const refused = await fetch(code.mcpServers.net.url, {
    method: 'POST',
    headers: { ...code.mcpServers.net.headers, 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(refused.status).toBe(401);

  // Connect opens the Clients screen on that client, where the change is previewed first.
  await page.getByRole('button', { name: 'Connect Claude Code…' }).click();
  await expect(page.getByRole('heading', { name: 'AI clients' })).toBeVisible();
  await expect(page.getByLabel('Client', { exact: true })).toHaveValue('claude-code');
});
