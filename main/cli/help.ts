/**
 * The one help system of `warden`: every command's help in the same layout, and the check that
 * refuses a flag a command does not take, naming that command's --help.
 */
import { showUntrusted } from '../../app/text/untrusted-text';
import {
  type CommandGroup,
  type CommandSpec,
  COMMAND_GROUPS,
  LEAF_COMMANDS,
} from './command-specs';
import { flagLines } from './flag-specs';

const HELP_FLAG = { name: '-h, --help', help: 'show this help' };

/** True when `args` (before any `--`) ask for help. */
export function asksForHelp(args: readonly string[]): boolean {
  const at = args.indexOf('--');
  return (at < 0 ? args : args.slice(0, at)).some((a) => a === '--help' || a === '-h');
}

/** The help of one command or subcommand. */
export function commandHelp(spec: CommandSpec): string {
  const usage = `Usage: warden ${spec.path.join(' ')}${spec.args ? ` ${spec.args}` : ''}`;
  const parts = [usage, '', `${capital(spec.summary)}.`];
  if (spec.details) parts.push(spec.details);
  parts.push('', 'Options:', flagLines([...spec.flags, HELP_FLAG]));
  for (const section of spec.sections ?? [])
    parts.push('', `${section.title}:`, flagLines(section.flags));
  return `${parts.join('\n')}\n`;
}

/** The help of a command group: its subcommands, one line each. */
export function groupHelp(group: CommandGroup): string {
  const rows = group.subcommands.map((s) => ({
    name: `${s.path.at(-1)!}${s.args ? ` ${s.args}` : ''}`,
    help: s.summary,
  }));
  return [
    `Usage: warden ${group.name} <subcommand> [options]`,
    '',
    `${capital(group.summary)}.`,
    '',
    'Subcommands:',
    table(rows),
    '',
    'Options:',
    flagLines([HELP_FLAG]),
    '',
    `Run "warden ${group.name} <subcommand> --help" for the options of each.`,
    '',
  ].join('\n');
}

/** `warden --help`. */
export function mainHelp(wardenHome: string): string {
  const rows = [
    ...COMMAND_GROUPS.map((g) => ({
      name: `${g.name} ${g.subcommands.map((s) => s.path.at(-1)!).join('|')}`,
      help: g.summary,
    })),
    ...LEAF_COMMANDS.map((c) => ({ name: c.path.join(' '), help: c.summary })),
  ];
  return [
    'Usage: warden <command> [options]',
    '',
    'Runs every local MCP server in its own sandbox.',
    '',
    'Commands:',
    table(rows),
    '',
    'Options:',
    flagLines([HELP_FLAG, { name: '-V, --version', help: "print Warden's version" }]),
    '',
    'Run "warden <command> --help" for details.',
    `State lives in $WARDEN_HOME (now: ${wardenHome}).`,
    '',
  ].join('\n');
}

/** The first flag in `args` that `spec` does not take, or undefined. Stops at `--`. */
export function unknownFlag(spec: CommandSpec, args: readonly string[]): string | undefined {
  const known = new Map(
    [...spec.flags, ...(spec.sections ?? []).flatMap((s) => s.flags)].map((f) => [f.name, f]),
  );
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token === '--') return undefined;
    if (!token.startsWith('-') || token === '-') continue;
    const eq = token.indexOf('=');
    const name = token.startsWith('--') && eq > 0 ? token.slice(0, eq) : token;
    const flag = known.get(name);
    if (!flag) return name;
    if (flag.value !== undefined && eq < 0) i++;
  }
  return undefined;
}

/** A spec's line for an unknown flag. */
export function unknownFlagMessage(spec: CommandSpec, flag: string): string {
  const where = spec.path.join(' ');
  if (spec.refuses?.flags.includes(flag.split('=')[0]!))
    return `${where}: ${showUntrusted(flag.split('=')[0]!)}: ${spec.refuses.why}`;
  return `${where}: unknown flag "${showUntrusted(flag)}" (see warden ${where} --help)`;
}

function table(rows: readonly { name: string; help: string }[]): string {
  return flagLines(rows);
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
