/** What the OAuth tests share: a Warden home, the authorization server fixture, the browser. */
import { afterEach, beforeEach } from 'vitest';
import { headlessSecretStore } from '../../../main/secrets/headless-secret-store';
import type { SecretStore } from '../../../main/secrets/secret-store';
import { type OAuthFixture, startOAuthFixture } from '../../fixtures/oauth-server';
import { tempDirEach } from '../../helpers/temp-dir';

export interface OAuthSetup {
  home: string;
  fixture: OAuthFixture;
  /** The headless secret store of `home`. */
  store: SecretStore;
}

/** Before each test: a fresh home, the fixture on a random port and the home's secret store;
 * after it, the fixture is closed and the home removed. */
export function oauthEach(prefix: string): OAuthSetup {
  const setup = { home: '' } as OAuthSetup;
  tempDirEach(prefix, (dir) => (setup.home = dir));
  beforeEach(async () => {
    setup.fixture = await startOAuthFixture();
    setup.store = headlessSecretStore(setup.home);
  });
  afterEach(() => setup.fixture.close());
  return setup;
}

/** Plays the browser: opens the authorization URL, and follows the authorization server's
 * redirect to the loopback listener (`rewrite` may tamper with it first). */
export async function followToLoopback(
  url: URL,
  rewrite: (callback: URL) => URL = (c) => c,
): Promise<Response> {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (location === null)
    throw new Error(`no redirect from the authorization server: ${res.status}`);
  return fetch(rewrite(new URL(location)));
}
