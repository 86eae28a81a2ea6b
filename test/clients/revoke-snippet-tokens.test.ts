/**
 * `warden clients revoke CLIENT` cuts off every gateway token of that client: those written into
 * its files, those copied from a server's detail page, and those older detail pages filed under
 * the client's display name, which no command could reach before.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { revokeClientTokens } from '../../main/clients/token-rotation';
import { type Sandbox, makeSandbox } from './clients-fixture';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(() => sb.cleanup());

it("revokes a client's copied and older snippet tokens, and no other client's", async () => {
  const older = await sb.ctx.tokens.issue('Claude Code', 'a snippet copied (2026-11-01)');
  const copied = await sb.ctx.tokens.issue('claude-code', 'a snippet copied (2026-12-01)');
  const other = await sb.ctx.tokens.issue('cursor', 'a snippet copied (2026-12-01)');
  const done = await revokeClientTokens(sb.ctx, { client: 'claude-code' });
  expect(done.ok && done.value.map((t) => t.client).sort()).toEqual(['Claude Code', 'claude-code']);
  expect(await sb.ctx.tokens.check(older)).toBe(false);
  expect(await sb.ctx.tokens.check(copied)).toBe(false);
  expect(await sb.ctx.tokens.check(other)).toBe(true);
});

it('with a file given, revokes only the tokens of that file', async () => {
  const older = await sb.ctx.tokens.issue('Claude Code', 'a snippet copied (2026-11-01)');
  const file = await sb.ctx.tokens.issue('claude-code', '/home/u/.claude.json');
  const done = await revokeClientTokens(sb.ctx, {
    client: 'claude-code',
    path: '/home/u/.claude.json',
  });
  expect(done.ok && done.value.length).toBe(1);
  expect(await sb.ctx.tokens.check(file)).toBe(false);
  expect(await sb.ctx.tokens.check(older)).toBe(true);
});
