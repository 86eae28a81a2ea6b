/**
 * Signing a browser out from the panel: the session ends on the server, every socket opened with
 * it is closed (in this browser's other tabs too, which then show they are signed out rather than
 * retry), the page forgets the secret and shows the sign-in page, and the secret, replayed,
 * opens nothing. A page driven by a script's token has no session, so no Sign out.
 */
import { WebSocket } from 'ws';
import { seriousA11yViolations } from './axe';
import { snapBoth } from './flows/flow-app';
import { rawRequest, upgradeHeaders } from '../test/helpers/web-fakes';
import { expect, test } from './fixtures';

test('Sign out ends the session in every tab, and its secret opens /ws no more', async ({
  page,
  warden,
}, testInfo) => {
  // Signed in as a person does, by the /login form with the printed token.
  await page.goto(`${warden.origin}/login`);
  await page.getByLabel('Session token').fill(new URL(warden.url).hash.replace('#token=', ''));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('No servers yet')).toBeVisible();
  const secret = (await page.evaluate(() => localStorage.getItem('warden-session')))!;
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const signOut = page.getByRole('button', { name: 'Sign out' });
  await expect(signOut).toBeVisible();
  await snapBoth(page, page.locator('header'), 'sign-out-header', testInfo);
  expect(await seriousA11yViolations(page)).toEqual([]);

  // A second tab of the same browser, and a socket opened with the secret from elsewhere.
  const tab = await page.context().newPage();
  await tab.goto(`${warden.origin}/`);
  await expect(tab.getByText('No servers yet')).toBeVisible();
  // From Node, which does not resolve `*.localhost`: at the fallback address, with its Origin.
  const wsUrl = `${warden.fallbackOrigin.replace('http:', 'ws:')}/ws`;
  const replayed = new WebSocket(wsUrl, ['warden.v1', `warden.token.${secret}`], {
    origin: warden.fallbackOrigin,
  });
  const closed = new Promise<[number, string]>((resolve) =>
    replayed.once('close', (code: number, reason: Buffer) => resolve([code, String(reason)])),
  );
  await new Promise((resolve, reject) => replayed.once('open', resolve).once('error', reject));

  await signOut.click();
  await expect(page).toHaveURL(`${warden.origin}/login?ended=signed-out`);
  await expect(page.getByRole('status')).toHaveText('You signed out of Warden in this browser.');
  await expect(page.getByLabel('Session token')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('warden-session'))).toBeNull();
  await snapBoth(page, page.locator('body'), 'sign-out-login', testInfo);
  expect(await seriousA11yViolations(page)).toEqual([]);

  // The server closed the open sockets: the other tab shows it is signed out too.
  expect(await closed).toEqual([4401, 'signed-out']);
  await expect(tab).toHaveURL(`${warden.origin}/login?ended=signed-out`);
  await expect(tab.getByRole('status')).toContainText('You signed out');

  // Replayed as web-security.spec.ts does, with Warden's Origin, the secret opens nothing.
  const port = Number(new URL(warden.origin).port);
  const upgrade = await rawRequest(
    port,
    '/ws',
    upgradeHeaders({
      Origin: warden.fallbackOrigin,
      'Sec-WebSocket-Protocol': `warden.v1, warden.token.${secret}`,
    }),
    {},
  );
  expect(upgrade.upgraded).toBe(false);
  expect(upgrade.status).toBe(401);
  const check = await fetch(`${warden.fallbackOrigin}/session`, {
    headers: { 'X-Warden-Session': secret },
  });
  expect(check.status).toBe(401);
  // Going back to the panel leads to /login, not into it.
  await page.goto(`${warden.origin}/`);
  await expect(page).toHaveURL(`${warden.origin}/login`);
  // Where a tab lands once its session expired.
  await page.goto(`${warden.origin}/login?ended=expired`);
  await expect(page.getByRole('status')).toContainText('a sign-in lasts 12 hours');
  await snapBoth(page, page.locator('body'), 'sign-out-login-expired', testInfo);

  // A page driven by the script's token has no session to end: no Sign out.
  await page.goto(warden.url);
  await expect(page.getByText('No servers yet')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
});
