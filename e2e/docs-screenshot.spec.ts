/**
 * The README's screenshot of the Servers screen (docs/servers.png), taken at 1280×800 in the light
 * theme against a real `warden serve` running the servers a person typically has: the reference
 * filesystem server with a read/write folder, the memory server, a tool left unsandboxed and not
 * yet confirmed, and a script that cannot start (its folder is not visible to the sandbox), each
 * used by a real MCP client first so that the rows show their live activity.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, repoRoot, test as base } from './fixtures';
import { serverItem } from './flows/flow-app';
import { netToolServer } from './flows/seed-servers';

const modules = join(repoRoot, 'node_modules');
const filesystem = join(modules, '@modelcontextprotocol/server-filesystem/dist/index.js');
const memory = join(modules, '@modelcontextprotocol/server-memory/dist/index.js');
const notes = '/tmp/warden-demo/notes';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await mkdir(notes, { recursive: true });
    await use([
      ['filesystem', '--ro', modules, '--rw', notes, '--', process.execPath, filesystem, notes],
      ['legacy-tool', '--isolation', 'off', '--', '/usr/bin/env'],
      ['memory', '--ro', modules, '--', process.execPath, memory],
      // Its folder is taken out of config.json below, so that it fails to start.
      netToolServer('build-scripts', netToolBundle),
    ]);
  },
  // eslint-disable-next-line no-empty-pattern
  editSeededConfig: async ({}, use) => {
    await use((config) => {
      for (const server of config.servers)
        if (server.name === 'build-scripts') server.policy.filesystem.roots = [];
    });
  },
});

test.skip(
  !process.env.WARDEN_DOCS_SCREENSHOT,
  'writes docs/servers.png in the repository: run with WARDEN_DOCS_SCREENSHOT=1 to retake it',
);

test("the README's screenshot of the Servers screen", async ({ page, warden }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(warden.url);
  for (const name of ['filesystem', 'memory', 'build-scripts']) {
    await serverItem(page, name)
      .getByRole('button', { name: `I have checked this command for ${name}` })
      .click();
  }
  const files = await warden.connect('filesystem');
  await files.callTool({ name: 'list_allowed_directories', arguments: {} });
  await files.callTool({
    name: 'write_file',
    arguments: { path: join(notes, 'todo.md'), content: '- try Warden\n' },
  });
  const graph = await warden.connect('memory');
  await graph.callTool({ name: 'read_graph', arguments: {} });
  await serverItem(page, 'build-scripts')
    .getByRole('button', { name: 'Start build-scripts' })
    .click();
  await expect(serverItem(page, 'build-scripts').locator('[data-run-state]')).toHaveText('Failed', {
    timeout: 30_000,
  });
  await expect(serverItem(page, 'filesystem').locator('[data-counts]')).toContainText('2 calls');
  await expect(serverItem(page, 'memory').locator('[data-counts]')).toContainText('1 call');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(repoRoot, 'docs', 'servers.png') });
});
