// Builds everything that runs: the CLI and core (main/), the sandbox init and its fetch preload
// (standalone scripts run inside sandboxes), the Electron main and preload, and the renderer.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';

/**
 * The identity of the schemas that validate config.json: a digest of their sources (app/ and the
 * config store) and of zod's version. A record that some config bytes passed validation holds
 * only for the build with the same identity (main/config/validated-config-cache.ts).
 */
function schemaId() {
  const hash = createHash('sha256');
  const sources = (dir) =>
    readdirSync(dir, { recursive: true })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .sort()
      .map((f) => join(dir, f));
  for (const file of [...sources('app'), ...sources('main/config')])
    hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  hash.update(readFileSync('node_modules/zod/package.json'));
  return hash.digest('hex').slice(0, 32);
}

const node = {
  define: { __WARDEN_SCHEMA_ID__: JSON.stringify(schemaId()) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
};
const only = process.argv.slice(2);

// zod's classic API re-exports every message locale (`z.locales`, about 370 KB) although only
// English is ever configured; the CLI bundle takes English alone, which every path that loads a
// schema would otherwise parse and compile at start-up.
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer)
        ? { path: 'zod-locales-en', namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: process.cwd(),
    }));
  },
};
/**
 * What the entries built whole (`warden connect`'s out/cli/connect.mjs, and
 * out/cli/early-launch.mjs when no core runs; `warden servers list`'s out/cli/list.mjs) load from
 * the CLI's other entries instead of holding it: by importing file, the import and the entry's
 * name. The early launch (its own file, built below, loaded only without a running core); the core
 * that goes on with a session; the egress broker (Node's HTTP and TLS), which only a networked
 * server needs; the guard schemas (zod), which only a managed policy file needs; for the list, the
 * whole command line (any other flag), the control channel's client (Node's networking) when a core
 * may run, the config store (zod) for bytes not recorded as valid, and the host probe when no
 * recent facts are shared.
 */
const wholeEntryImports = {
  'main/cli/connect-entry.ts': { './warden': 'warden' },
  'main/cli/list-entry.ts': { './cli': 'cli', '../core/control-channel': 'control-channel' },
  'main/cli/servers-list.ts': {
    '../config/config-store': 'config-store',
    './state-folder': 'state-folder',
    '../sandbox/linux/probe': 'probe',
  },
  'main/gateway/connect-command.ts': {
    '../core/early-launch': 'early-launch',
    './connect-standalone': 'standalone',
  },
  'main/core/launch-egress.ts': {
    '../egress/start-egress': 'start-egress',
    '../egress/host-port-egress': 'host-port-egress',
  },
  'main/config/guard-layers.ts': {
    '../../app/policy/guards-schema': 'guards-schema',
    '../../app/policy/validate': 'validate',
  },
};
const namedEntries = {
  cli: 'main/cli/cli.ts',
  'config-store': 'main/config/config-store.ts',
  'state-folder': 'main/cli/state-folder.ts',
  probe: 'main/sandbox/linux/probe.ts',
  'control-channel': 'main/core/control-channel.ts',
  'start-egress': 'main/egress/start-egress.ts',
  'host-port-egress': 'main/egress/host-port-egress.ts',
  'guards-schema': 'app/policy/guards-schema.ts',
  validate: 'app/policy/validate.ts',
};
const want = (name) => only.length === 0 || only.includes(name);

await rm('out', { recursive: true, force: true }).catch(() => undefined);

const jobs = [];
if (want('cli')) {
  // Self-contained: the SDK, zod and every other pure-JS dependency are bundled in, so start-up
  // reads a few files instead of hundreds under node_modules. Native modules (and the optional
  // native helpers of ws) stay external.
  const cli = {
    ...node,
    packages: undefined,
    external: ['better-sqlite3', 'electron', 'bufferutil', 'utf-8-validate'],
    outdir: 'out/cli',
    format: 'esm',
    // Prefer a dependency's ES module build: a UMD build (jsonc-parser) hides its requires.
    mainFields: ['module', 'main'],
    outExtension: { '.js': '.mjs' },
    // Bundled CommonJS dependencies still call require() (for node: built-ins and externals).
    banner: {
      js: "import { createRequire as __wardenRequire } from 'node:module'; const require = __wardenRequire(import.meta.url);",
    },
  };
  // The CLI: each command is its own chunk, loaded when it runs.
  jobs.push(
    build({
      ...cli,
      entryPoints: { warden: 'main/cli/warden.ts', ...namedEntries },
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      plugins: [englishOnlyZodLocales],
    }),
  );
  // The core that goes on with a session started without a running core (out/cli/standalone.mjs),
  // built on its own, its chunks under out/cli/core: it loads beside the server's start, and as a
  // share of the CLI's chunks it read, compiled and linked twice as many files (each costs CPU the
  // server's start is waiting for on a machine with few cores).
  jobs.push(
    build({
      ...cli,
      entryPoints: { standalone: 'main/gateway/connect-standalone.ts' },
      splitting: true,
      chunkNames: 'core/[name]-[hash]',
      plugins: [englishOnlyZodLocales],
    }),
  );
  // `warden connect`, which an AI client waits for at each start, as two files built whole: the
  // command (what joining a running core needs; it turns on the compile cache, where the runtime
  // has one, before anything bigger loads) and, loaded only when no core runs, the early launch:
  // everything a session without a core needs up to the server's launch. The core that goes on
  // with the session, and every other command line, are the CLI's entries above. And `warden
  // servers list`, as one file that asks a running core or reads config.json itself.
  const cliEntries = {
    name: 'cli-entries',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        const importer = relative(process.cwd(), args.importer).split(sep).join('/');
        const name = wholeEntryImports[importer]?.[args.path];
        return name ? { path: `./${name}.mjs`, external: true } : undefined;
      });
    },
  };
  for (const [name, entry] of [
    ['connect', 'main/cli/connect-entry.ts'],
    ['early-launch', 'main/core/early-launch.ts'],
    ['list', 'main/cli/list-entry.ts'],
  ]) {
    jobs.push(
      build({
        ...cli,
        entryPoints: { [name]: entry },
        plugins: [englishOnlyZodLocales, cliEntries],
        metafile: true,
      }).then((result) => {
        // Anything heavy pulled in here is parsed before every launch without a running core.
        const bytes = result.metafile.outputs[`out/cli/${name}.mjs`].bytes;
        if (bytes > 300_000) console.warn(`warning: out/cli/${name}.mjs is ${bytes} bytes`);
      }),
    );
  }
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
      // main/audit/sqlite-module.ts takes Node's `require` in CommonJS, import.meta.url in ESM.
      logOverride: { 'empty-import-meta': 'silent' },
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
      logOverride: { 'empty-import-meta': 'silent' },
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
if (want('native')) {
  const { buildNativePrograms } = await import('./build-native.mjs');
  for (const warning of buildNativePrograms()) console.warn(`warning: ${warning}`);
}

if (want('renderer') && existsSync('vite.config.ts')) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
}
