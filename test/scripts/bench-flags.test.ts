/**
 * Every benchmark answers `--help` with what it measures and its flags, and refuses a flag it
 * does not know or a number that is not one before measuring anything.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bench/run.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });

it('bench/run.mjs --help lists the benchmarks; an unknown one is refused', () => {
  const help = run('--help');
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('gateway-bench');
  expect(help.stdout).toContain('first-response');
  const nope = run('no-such-bench');
  expect(nope.status).toBe(2);
  expect(nope.stderr).toContain('no benchmark no-such-bench');
});

it('a benchmark prints its flags on --help and refuses a bad flag before measuring', () => {
  const help = run('relay-bench', '--help');
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/--calls N +calls per measurement \(default 100000\)/);
  for (const bad of [['--calls', 'many'], ['--calls', '0'], ['--bogus'], ['5']]) {
    const refused = run('relay-bench', ...bad);
    expect(refused.status, bad.join(' ')).toBe(2);
    expect(refused.stderr).toContain('usage: node bench/run.mjs relay-bench');
    expect(refused.stdout).not.toContain('µs');
  }
});
