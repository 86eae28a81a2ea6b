/**
 * The Add form gets the same command check as `warden servers add`: a script given to an
 * interpreter outside every folder the server sees is refused next to the arguments, with the
 * folder to give it, and nothing is saved.
 */
import { expect, test } from './fixtures';
import { addThroughForm } from './flows/flow-app';

test('a node script outside every visible folder is refused next to the arguments', async ({
  panel: page,
  warden,
}) => {
  await addThroughForm(page, 'outside', 'node', '/opt/mcp-tools/server.js');
  const args = page.getByLabel('Arguments');
  await expect(args).toHaveAttribute('aria-invalid', 'true');
  await expect(
    page.getByText(
      'the script /opt/mcp-tools/server.js is outside every folder the server can see: let the server read its folder: --ro /opt/mcp-tools',
    ),
  ).toBeVisible();
  expect((await warden.readConfig().catch(() => ({ servers: [] }))).servers).toEqual([]);
});
