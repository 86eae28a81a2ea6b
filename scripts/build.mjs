// Builds everything that runs: the CLI and core (main/), the sandbox init and its fetch preload
// (standalone scripts run inside sandboxes), the Electron main and preload, and the renderer.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
};
const only = process.argv.slice(2);
const want = (name) => only.length === 0 || only.includes(name);

await rm('out', { recursive: true, force: true }).catch(() => undefined);

const jobs = [];
if (want('cli')) {
  // Self-contained: the SDK, zod and every other pure-JS dependency are bundled in, so start-up
  // reads a few files instead of hundreds under node_modules. Native modules (and the optional
  // native helpers of ws) stay external. Each command is its own chunk, loaded when it runs.
  jobs.push(
    build({
      ...node,
      packages: undefined,
      external: ['better-sqlite3', 'electron', 'bufferutil', 'utf-8-validate'],
      entryPoints: { warden: 'main/cli/warden.ts' },
      outdir: 'out/cli',
      format: 'esm',
      splitting: true,
      // Prefer a dependency's ES module build: a UMD build (jsonc-parser) hides its requires.
      mainFields: ['module', 'main'],
      chunkNames: 'chunks/[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      // Bundled CommonJS dependencies still call require() (for node: built-ins and externals).
      banner: {
        js: "import { createRequire as __wardenRequire } from 'node:module'; const require = __wardenRequire(import.meta.url);",
      },
    }),
  );
}
const standalone = [
  ['sandbox-init', 'main/sandbox-init/init.ts', 'out/sandbox-init/init.cjs'],
  ['sandbox-init', 'main/sandbox-init/fetch-preload.ts', 'out/sandbox-init/fetch-preload.cjs'],
];
for (const [name, entry, outfile] of standalone) {
  // Runs inside the sandbox with nothing else available: bundled whole, no dependencies.
  if (want(name) && existsSync(entry)) {
    jobs.push(
      build({
        ...node,
        packages: undefined,
        entryPoints: [entry],
        outfile,
        format: 'cjs',
        sourcemap: false,
        minify: false,
      }),
    );
  }
}
if (want('audit-writer')) {
  // The audit log's writer thread (a worker the core starts): its own file, beside the CLI.
  jobs.push(
    build({
      ...node,
      entryPoints: ['main/audit/audit-write-thread.ts'],
      outfile: 'out/audit-writer/audit-write-thread.cjs',
      format: 'cjs',
    }),
  );
}
if (want('electron') && existsSync('main/electron/electron-main.ts')) {
  jobs.push(
    build({
      ...node,
      entryPoints: ['main/electron/electron-main.ts'],
      outfile: 'out/electron/main.cjs',
      format: 'cjs',
      external: ['electron'],
    }),
  );
  // A sandboxed preload can require only 'electron': everything else is bundled in.
  jobs.push(
    build({
      ...node,
      packages: undefined,
      entryPoints: ['main/electron/preload.ts'],
      outfile: 'out/electron/preload.cjs',
      format: 'cjs',
      external: ['electron'],
    }),
  );
}
await Promise.all(jobs);
if (want('landlock')) {
  const { buildLandlockLauncher } =
    await import('../main/sandbox/linux/landlock/build-launcher.mjs');
  const why = buildLandlockLauncher();
  if (why && process.platform === 'linux')
    console.warn(`warning: Landlock backend unavailable: ${why}`);
}

if (want('renderer') && existsSync('vite.config.ts')) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
}
