/** Renders a launch spec as one shell-quoted line, so the user always sees the full command. */
import type { LaunchSpec } from '../../app/policy/policy-schema';

/** Quotes one argument for a POSIX shell, only when it needs it. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The whole command line of a launch spec. */
export function formatCommandLine(launch: LaunchSpec): string {
  return [launch.command, ...launch.args].map(shellQuote).join(' ');
}
