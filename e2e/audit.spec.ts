/**
 * Flow 3 in Chromium against a real `warden serve`: tool calls from an MCP client through
 * `warden connect` appear live in the audit log, filter, detail (redacted), export and verify.
 */
import { netToolSeed, test as base } from './fixtures';
import { SECRET, auditFlow } from './flows/audit-flow';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([netToolSeed(netToolBundle, 'calls', '--set-env', `API_TOKEN=${SECRET}`)]);
  },
});

test('flow 3: calls appear live, the filter narrows them, detail is redacted, export matches', async ({
  page,
  warden,
}, testInfo) => {
  await page.goto(warden.url);
  await auditFlow({ page, ...warden, testInfo });
});
