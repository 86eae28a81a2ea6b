#!/usr/bin/env node
// Runs a TypeScript benchmark: `node bench/run.mjs NAME [args…]` bundles bench/NAME.ts with
// esbuild (platform node, ESM, packages left external) and runs it with this Node.
// The bundle is written under node_modules/.cache so that its bare imports resolve from the
// project's node_modules; it is removed afterwards. Exit code is the benchmark's.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The files that are benchmarks (the others are their parts). */
const BENCHMARK = /-bench\.ts$|^(first-response|npx-launch)\.ts$/;

/** Bundles `entry` (a .ts file) to a temporary .mjs; returns its path and a cleanup function. */
export async function bundleForNode(entry, { minify = false } = {}) {
  const cacheRoot = join(root, 'node_modules', '.cache');
  await mkdir(cacheRoot, { recursive: true });
  const dir = await mkdtemp(join(cacheRoot, 'warden-run-'));
  const outfile = join(dir, 'entry.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    minify,
    logLevel: 'warning',
  });
  return { outfile, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The benchmarks: every bench/*-bench.ts and the others that print figures. */
async function usage() {
  const names = (await readdir(join(root, 'bench')))
    .filter((f) => f.endsWith('.ts') && BENCHMARK.test(f))
    .map((f) => f.slice(0, -3));
  return [
    'usage: node bench/run.mjs NAME [flags]   (runs bench/NAME.ts; NAME --help lists its flags)',
    '',
    `benchmarks: ${names.join(', ')}`,
    '',
  ].join('\n');
}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  if (!name || name.startsWith('-')) {
    const help = name === '--help' || name === '-h';
    (help ? process.stdout : process.stderr).write(await usage());
    return help ? 0 : 2;
  }
  const entry = join(root, 'bench', name.endsWith('.ts') ? name : `${name}.ts`);
  if (!existsSync(entry)) {
    process.stderr.write(`no benchmark ${name} (${entry})\n\n${await usage()}`);
    return 2;
  }
  const { outfile, cleanup } = await bundleForNode(entry);
  try {
    const child = spawn(process.execPath, ['--enable-source-maps', outfile, ...args], {
      stdio: 'inherit',
    });
    const forward = (sig) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const [code, signal] = await new Promise((res) => child.on('exit', (c, s) => res([c, s])));
    return signal ? 1 : (code ?? 1);
  } finally {
    await cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
