#!/usr/bin/env node
// The `warden` command. The CLI is built from main/ into out/ by `npm run build` (run by
// `npm install` in a checkout through the "prepare" script).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../out/cli/warden.mjs', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('warden: the CLI is not built yet; run "npm run build" in the checkout\n');
  process.exit(70);
}
await import(pathToFileURL(entry).href);
