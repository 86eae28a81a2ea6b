/**
 * One `warden` command as data (its path, arguments, summary and flags), and the helper that
 * builds one from its usage line as help prints it. The tables of commands are built from these
 * (command-specs.ts, setting-commands.ts).
 */
import type { FlagSpec } from './flag-specs';

export interface FlagSection {
  title: string;
  flags: readonly FlagSpec[];
}

export interface CommandSpec {
  /** The words after `warden`, e.g. `['servers', 'add']`. */
  path: readonly string[];
  /** Arguments after the words, as shown in the usage line. */
  args: string;
  summary: string;
  /** More text under the summary; plain lines. */
  details?: string;
  flags: readonly FlagSpec[];
  /** Further groups of flags the command takes, each listed under its title. */
  sections?: readonly FlagSection[];
  /** Flags other commands take that this one refuses, and why (said instead of "unknown"). */
  refuses?: { flags: readonly string[]; why: string };
}

export interface CommandGroup {
  name: string;
  summary: string;
  subcommands: readonly CommandSpec[];
}

/** What a command may have beyond its usage and summary. */
export type CommandExtras = Partial<
  Pick<CommandSpec, 'details' | 'flags' | 'sections' | 'refuses'>
>;

/**
 * A command from its usage line as help prints it, e.g. `servers show NAME [--json]`: the leading
 * lowercase words are its path, the rest its arguments.
 */
export function command(usage: string, summary: string, extras: CommandExtras = {}): CommandSpec {
  const words = usage.split(' ');
  const cut = words.findIndex((w) => !/^[a-z]+(?:-[a-z]+)*$/.test(w));
  const at = cut === -1 ? words.length : cut;
  const { details, flags = [], sections, refuses } = extras;
  return {
    path: words.slice(0, at),
    args: words.slice(at).join(' '),
    summary,
    ...(details === undefined ? {} : { details }),
    flags,
    ...(sections === undefined ? {} : { sections }),
    ...(refuses === undefined ? {} : { refuses }),
  };
}

/** `--json`, which many commands take. */
export const json: FlagSpec = { name: '--json', help: 'print JSON instead of text' };
