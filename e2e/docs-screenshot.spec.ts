/**
 * The README's screenshot of the Servers screen (docs/servers.png), taken at 1280×800 in the light
 * theme against a real `warden serve` running the servers a person typically has: the reference
 * filesystem server with a read/write folder, the memory server, a tool left unsandboxed and not
 * yet confirmed, and a script that cannot start (its folder is not visible to the sandbox), each
 * used by a real MCP client first so that the rows show their live activity. The paths are a
 * person's (a fixture home), not the checkout's.
 */
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { bundleForNode } from '../test/helpers/bundle';
import { expect, repoRoot, test as base } from './fixtures';
import { serverItem } from './flows/flow-app';

/**
 * The home the shot shows, as a person's would look: the servers installed under it, a notes
 * folder, a project's script. Created for the shot (never over a real home: see `fixtureHome`).
 */
const home = process.env.WARDEN_DOCS_HOME ?? '/home/alex';
const installed = join(home, '.local/share/mcp-servers');
const notes = join(home, 'notes');
const script = join(home, 'projects/website/scripts/check-links.mjs');
const MARK = '.warden-docs-fixture';

/** Makes `home` for the shot; refuses a folder that exists and was not made for it. */
async function fixtureHome(): Promise<void> {
  const entries = await readdir(home).catch(() => undefined);
  if (entries && entries.length > 0 && !entries.includes(MARK)) {
    throw new Error(`${home} exists and is not a docs fixture: set WARDEN_DOCS_HOME elsewhere`);
  }
  await mkdir(home, { recursive: true });
  await writeFile(join(home, MARK), 'made for docs/servers.png\n');
}

/** Bundles the reference server `pkg` into one script at `installed/NAME/server.mjs`. */
async function install(name: string, pkg: string): Promise<string> {
  const bundle = await bundleForNode(join(repoRoot, 'node_modules', pkg, 'dist/index.js'));
  const to = join(installed, name, 'server.mjs');
  await mkdir(dirname(to), { recursive: true });
  await copyFile(bundle, to);
  return to;
}

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await fixtureHome();
    await mkdir(notes, { recursive: true });
    await mkdir(dirname(script), { recursive: true });
    await copyFile(netToolBundle, script);
    const filesystem = await install('filesystem', '@modelcontextprotocol/server-filesystem');
    const memory = await install('memory', '@modelcontextprotocol/server-memory');
    const ro = (file: string) => ['--ro', dirname(file)];
    await use([
      ['filesystem', ...ro(filesystem), '--rw', notes, '--', process.execPath, filesystem, notes],
      ['legacy-tool', '--isolation', 'off', '--', '/usr/bin/env'],
      ['memory', ...ro(memory), '--', process.execPath, memory],
      // Its folder is taken out of config.json below, so that it fails to start.
      ['build-scripts', ...ro(script), '--', process.execPath, script],
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
  'writes docs/servers.png in the repository and a fixture home (/home/alex, or WARDEN_DOCS_HOME): run with WARDEN_DOCS_SCREENSHOT=1 to retake it',
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
