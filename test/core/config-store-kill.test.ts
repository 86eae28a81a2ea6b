/**
 * The config file under SIGKILL: a child process rewrites it in a loop through the real atomic
 * write, is killed at an arbitrary step, and what is left on disk must parse whole.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleForNode } from '../helpers/bundle';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
tempDirEach('warden-config-', (d) => (home = d));

describe('config.json under SIGKILL', () => {
  it('never leaves a torn file when the process is killed while writing', async () => {
    // A child rewrites the config in a loop; SIGKILL lands at an arbitrary step.
    const storeModule = await bundleForNode(
      join(import.meta.dirname, '../../main/config/atomic-write.ts'),
    );
    const script = `
      const { writeFileAtomic } = await import(${JSON.stringify(storeModule)});
      const big = 'x'.repeat(200000);
      for (let i = 0; ; i++) {
        await writeFileAtomic(${JSON.stringify(join(home, 'config.json'))}, JSON.stringify({ i, big }));
        if (i === 3) process.stdout.write('ready\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await new Promise((r) => setTimeout(r, 37));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const text = await readFile(join(home, 'config.json'), 'utf8');
    const doc = JSON.parse(text) as { i: number; big: string };
    expect(doc.big.length).toBe(200000);
  });
});
