/**
 * Importing a client's npx server carries the user's npm `allow-scripts` into the server's
 * environment: npm 12 runs only the install scripts listed there, and npm inside the sandbox
 * cannot read the user's npm config (which holds registry tokens and is never granted).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { previewImport } from '../../main/clients/import-service';
import { type Sandbox, makeSandbox } from './clients-fixture';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(() => box.cleanup());

const npxEntry = async () => {
  await box.place(
    'claude-desktop/claude_desktop_config.json.fixture',
    '.config/Claude/claude_desktop_config.json',
  );
  const previews = await previewImport(box.ctx, { client: 'claude-desktop' });
  if (!previews.ok) throw new Error(previews.error.message);
  return previews.value[0]!.candidates.find((c) => c.entryName === 'memory')!;
};

it("sets npm_config_allow_scripts from the user's ~/.npmrc, and nothing else of that file", async () => {
  await writeFile(
    join(box.home, '.npmrc'),
    '//registry.npmjs.org/:_authToken=npm_SECRET\nallow-scripts[]=sharp\nallow-scripts[]=canvas\n',
  );
  const memory = await npxEntry();
  expect(memory.policy!.env.set.npm_config_allow_scripts).toEqual({
    kind: 'plain',
    value: 'sharp,canvas',
  });
  expect(memory.notes.join('\n')).toContain('npm_config_allow_scripts');
  expect(JSON.stringify(memory)).not.toContain('npm_SECRET');
});

it('sets nothing when the user approved no install scripts', async () => {
  const memory = await npxEntry();
  expect(memory.policy!.env.set).not.toHaveProperty('npm_config_allow_scripts');
});
