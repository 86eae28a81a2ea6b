#!/usr/bin/env node
// The `warden` command. The CLI is built from main/ into out/ by `npm run build` (run by
// `npm install` in a checkout through the "prepare" script). `warden connect`, which an AI client
// waits for at each start, and `warden servers list` have entries of their own, built as one file.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [command, subcommand] = process.argv.slice(2);
const name =
  command === 'connect'
    ? 'connect.mjs'
    : command === 'servers' && subcommand === 'list'
      ? 'list.mjs'
      : 'warden.mjs';
const entry = fileURLToPath(new URL(`../out/cli/${name}`, import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('warden: the CLI is not built yet; run "npm run build" in the checkout\n');
  process.exit(70);
}
await import(pathToFileURL(entry).href);
