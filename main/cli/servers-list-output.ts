/**
 * What `warden servers list` prints, and the flag parsing the servers subcommands share, apart
 * from the rest of the servers command so that the list answered without a core loads no schema.
 */
import { parseArgs } from 'node:util';
import type { ServerView } from '../../app/contract/servers';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import type { CliIo } from './cli-io';
import { inStateFolder } from './state-folder';

/** The isolation a server gets here, in a few words. */
export function badge(view: ServerView): string {
  switch (view.isolation.kind) {
    case 'sandboxed':
      return `sandboxed (${view.isolation.backend})`;
    case 'off':
      return 'NOT SANDBOXED';
    case 'remote':
      return `remote (${view.isolation.transport}), through the gateway`;
    case 'unavailable':
      return `cannot sandbox here: ${showUntrusted(view.isolation.reason)}`;
  }
}

/** `--json` and positionals; any other flag throws (reported as a usage error). */
export function onlyJsonFlag(args: string[]): { json: boolean; positionals: string[] } {
  const parsed = parseArgs({
    args,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  return { json: parsed.values.json === true, positionals: parsed.positionals };
}

/** Prints the servers of `wardenHome`: one line each, or JSON. */
export function printServersList(
  views: readonly ServerView[],
  json: boolean,
  io: CliIo,
  wardenHome: string,
): void {
  if (json) io.stdout(`${terminalJson(views)}\n`);
  else if (views.length === 0)
    io.stdout(
      `No servers yet${inStateFolder(wardenHome)}. Add one with: warden servers add NAME -- COMMAND ARGS\n`,
    );
  else
    for (const v of views)
      io.stdout(`${showUntrusted(v.server.name)}\t${badge(v)}\t${showUntrusted(v.commandLine)}\n`);
}
