import { spawnSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ConfigProblem } from '../../app/contract/servers';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

const bin = join(import.meta.dirname, '../../bin/warden.js');
let home = '';
tempDirEach('warden-outside-', (d) => (home = d));

it('a server added with the CLI while the core runs is taken in, and not lost on the next write', async () => {
  const core = await createCore({ wardenHome: home });
  try {
    const seen: string[] = [];
    core.subscribe((event, payload) => {
      if (event === 'servers.changed')
        seen.push((payload as { server: { name: string } }[]).map((v) => v.server.name).join(','));
    });
    const added = spawnSync(process.execPath, [bin, 'servers', 'add', 'from-cli', '--', 'true'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(added.status).toBe(0);
    await expect
      .poll(() => core.config.getServer('from-cli')?.name, { timeout: 3000 })
      .toBe('from-cli');
    expect(seen.at(-1)).toBe('from-cli');
    // The core's own next write keeps the server the CLI added.
    await core.config.addServer({
      name: 'from-core',
      launch: { command: 'true', args: [] },
      policy: core.config.getServer('from-cli')!.policy,
    });
    const listed = spawnSync(process.execPath, [bin, 'servers', 'list'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(listed.stdout).toContain('from-cli');
    expect(listed.stdout).toContain('from-core');
  } finally {
    await core.close();
  }
});

it('an unusable edit from outside is moved aside and reported; the core keeps and rewrites its own copy', async () => {
  const core = await createCore({ wardenHome: home });
  try {
    const problems: ConfigProblem[] = [];
    core.subscribe((event, payload) => {
      if (event === 'config.problem') problems.push(payload as ConfigProblem);
    });
    await core.config.addServer({
      name: 'kept',
      launch: { command: 'true', args: [] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    await writeFile(join(home, 'config.json'), '{ "schemaVersion": 1, "servers": [ broken');
    await expect.poll(() => problems.length, { timeout: 3000 }).toBe(1);
    expect(problems[0]).toMatchObject({ kind: 'corrupt' });
    expect((await readdir(home)).some((f) => f.startsWith('config.json.corrupt-'))).toBe(true);
    // The core writes its own copy back after moving the broken one aside; the list reads that.
    await expect
      .poll(() => readFile(join(home, 'config.json'), 'utf8').catch(() => ''), { timeout: 3000 })
      .toContain('"kept"');
    const listed = spawnSync(process.execPath, [bin, 'servers', 'list'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(listed.stdout).toContain('kept');
  } finally {
    await core.close();
  }
});
