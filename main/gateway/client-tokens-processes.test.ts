/**
 * Two token stores of one Warden home stand for two Warden processes (the app rewriting a
 * client's config, and `warden clients revoke-token`): a token one revokes stays revoked while
 * the other issues tokens at the same moment, and both keep one owner key.
 */
import { expect, it } from 'vitest';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ClientTokens } from './client-tokens';

let home = '';
tempDirEach('warden-tokens-processes-', (d) => (home = d));

it('keeps a revoked token revoked while another process issues tokens', async () => {
  const app = new ClientTokens(home);
  const cli = new ClientTokens(home);
  const revokedTokens: string[] = [];
  const issued: string[] = [];
  for (let round = 0; round < 6; round++) {
    revokedTokens.push(await app.issue(`claude-${round}`, '/c/claude.json'));
    const [, fresh] = await Promise.all([
      cli.revoke(`claude-${round}`, 'revoked by the user'),
      Promise.all([1, 2, 3].map((i) => app.issue(`cursor-${round}-${i}`, `/c/cursor-${i}.json`))),
    ]);
    issued.push(...fresh);
  }
  const reader = new ClientTokens(home);
  for (const token of revokedTokens) expect(await reader.check(token)).toBe(false);
  for (const token of issued) expect(await reader.check(token)).toBe(true);
});

it('makes one owner key when two processes start on a new home at once', async () => {
  const keys = await Promise.all(
    [new ClientTokens(home), new ClientTokens(home)].map((t) => t.ownerKey()),
  );
  expect(keys[0]).toBe(keys[1]);
  expect(await new ClientTokens(home).ownerKey()).toBe(keys[0]);
});
