/**
 * The gateway tokens the server detail page copies: one per client for a run of the core, a new
 * one once that was revoked (never the dead one again), and none left that no command revokes:
 * older pages made one for "an HTTP client", which the gateway revokes when it starts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Core, createCore } from '../../main/core/core';
import { ClientTokens } from '../../main/gateway/client-tokens';
import { type GatewayStart, startGateway } from '../../main/gateway/start-gateway';
import { tempDirEach } from '../helpers/temp-dir';

let root = '';
let core: Core | undefined;
let started: GatewayStart | undefined;
tempDirEach('warden-snippet-tokens-', (d) => (root = d));
beforeEach(() => {
  core = undefined;
  started = undefined;
});
afterEach(async () => {
  await started?.doors?.close();
  await core?.close();
});

const copied = async (c: Core, client: 'cursor' | 'claude-code') => {
  const reply = await c.handle('servers.snippetToken', { client });
  if (!reply.ok) throw new Error(reply.error.message);
  return (reply.value as { token: string }).token;
};

it('revokes at the gateway start the tokens no client owns, and no client its own', async () => {
  const wardenHome = join(root, 'warden');
  await mkdir(wardenHome, { mode: 0o700 });
  const tokens = new ClientTokens(wardenHome);
  const orphan = await tokens.issue('an HTTP client', 'a snippet copied (2026-11-01)');
  const labelled = await tokens.issue('Claude Code', 'a snippet copied (2026-11-01)');
  const own = await tokens.issue('cursor', '/home/u/.cursor/mcp.json');
  core = await createCore({ wardenHome });
  started = await startGateway(core, 0);
  expect(await tokens.check(orphan)).toBe(false);
  expect(await tokens.check(labelled)).toBe(true);
  expect(await tokens.check(own)).toBe(true);
  expect((await tokens.list()).find((t) => t.client === 'an HTTP client')?.revokedWhy).toMatch(
    /which no command revokes/,
  );
});

it('copies one token per client, and a new one after it was revoked', async () => {
  const wardenHome = join(root, 'warden');
  core = await createCore({ wardenHome });
  started = await startGateway(core, 0);
  const [first, again, other] = await Promise.all([
    copied(core, 'cursor'),
    copied(core, 'cursor'),
    copied(core, 'claude-code'),
  ]);
  expect(again).toBe(first);
  expect(other).not.toBe(first);
  const tokens = new ClientTokens(wardenHome);
  expect(await tokens.check(first)).toBe(true);
  await tokens.revoke('cursor', 'revoked by the user');
  const renewed = await copied(core, 'cursor');
  expect(renewed).not.toBe(first);
  expect(await tokens.check(renewed)).toBe(true);
  expect(await tokens.check(first)).toBe(false);
});
