/**
 * Where bubblewrap is missing, the UI says so for every sandboxed server, and a client that
 * reaches such a server gets the typed refusal with its remedy: never a bare spawn.
 * The missing capability is simulated by pointing WARDEN_BWRAP at a path that does not exist.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, test } from '@playwright/test';
import { repoRoot, startServe, stopServe } from './fixtures';

const bin = join(repoRoot, 'bin', 'warden.js');
const everything = join(
  repoRoot,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

test('a missing bubblewrap shows "Cannot sandbox here" with the reason, and a client gets the refusal', async ({
  page,
}, testInfo) => {
  const home = await mkdtemp(join(tmpdir(), 'warden-nobwrap-'));
  // bubblewrap is the backend asked for (no Landlock fallback), and it is missing.
  const env = {
    ...process.env,
    WARDEN_HOME: home,
    WARDEN_BWRAP: join(home, 'no-such-bwrap'),
    WARDEN_SANDBOX_BACKEND: 'bwrap',
  };
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    execFileSync(
      process.execPath,
      [
        bin,
        'servers',
        'add',
        'everything',
        '--ro',
        join(repoRoot, 'node_modules'),
        '--',
        process.execPath,
        everything,
        'stdio',
      ],
      { env },
    );
    serve = await startServe(home, {
      WARDEN_BWRAP: env.WARDEN_BWRAP,
      WARDEN_SANDBOX_BACKEND: 'bwrap',
    });
    const { url } = serve;
    await page.goto(url);
    const badge = page.getByText(/Cannot sandbox here: bubblewrap was not found/);
    await expect(badge.first()).toBeVisible();
    await page.screenshot({
      path: testInfo.outputPath('isolation-unavailable.png'),
      fullPage: true,
    });

    const client = new Client({ name: 'nobwrap', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'connect', 'everything'],
      env: env,
      stderr: 'pipe',
    });
    await expect(client.connect(transport)).rejects.toThrow(
      /cannot sandbox here: bubblewrap was not found.*install bubblewrap/i,
    );
    await client.close();
  } finally {
    if (serve) await stopServe(serve.child);
    await rm(home, { recursive: true, force: true });
  }
});
