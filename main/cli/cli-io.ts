import { showUntrusted } from '../../app/text/untrusted-text';

/** What a CLI command writes to, so commands run the same in-process (tests) and as `warden`. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * Asks the person at the terminal and resolves with their answer; absent when there is no
   * terminal to ask on (a pipe, a script, CI), where commands that would ask need --yes.
   */
  ask?: (question: string) => Promise<string>;
}

/** True when the person answered yes to `question`; false when there is nobody to ask. */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  if (!io.ask) return false;
  return /^\s*y(es)?\s*$/i.test(await io.ask(`${question} [y/N] `));
}

/** Exit status for bad flags or values, as conventional for usage errors. */
export const EXIT_USAGE = 2;

/** A usage problem: one line naming the flag and what it accepts. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The value of a port flag (`--port`, `--gateway-port`), or `fallback` when it was not given;
 * anything but a whole number from 0 to 65535 is a UsageError naming `command` and the flag.
 */
export function portFlag(
  command: string,
  flag: string,
  value: string | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(
      `${command}: ${flag} must be a whole number from 0 to 65535, got "${value}"`,
    );
  return Number(value);
}

/** Writes a usage error the way every command does, returning the exit status. */
export function reportUsage(io: CliIo, error: UsageError): number {
  // A usage error may quote the policy (a tool name a server chose) as well as the command line.
  io.stderr(`warden: ${showUntrusted(error.message)}\n`);
  return EXIT_USAGE;
}

/** Splits `args` at the first `--`: flags before it, the command after it. */
export function splitAtDashDash(args: readonly string[]): {
  flags: string[];
  command: string[] | undefined;
} {
  const at = args.indexOf('--');
  if (at < 0) return { flags: [...args], command: undefined };
  return { flags: args.slice(0, at), command: args.slice(at + 1) };
}
