/** The output streams of a CLI command, kept in strings for a test to read. */
export interface CapturedIo {
  out: { stdout: string; stderr: string };
  io: { stdout: (text: string) => void; stderr: (text: string) => void };
}

/** Fresh captured streams: pass `io` to the command, read `out` afterwards. */
export function captureIo(): CapturedIo {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: (t: string) => void (out.stdout += t),
    stderr: (t: string) => void (out.stderr += t),
  };
  return { out, io };
}

/** `warden ARGV…` run in this process, each run's output kept until the next run. */
export interface CliSession {
  out: string;
  err: string;
  warden: (...argv: string[]) => Promise<number>;
}

/** A session over `runCli` (passed in, so that this helper loads no CLI code of its own). */
export function cliSession(
  runCli: (argv: string[], io: CapturedIo['io']) => Promise<number>,
): CliSession {
  const session: CliSession = {
    out: '',
    err: '',
    warden: (...argv) => {
      session.out = '';
      session.err = '';
      return runCli(argv, {
        stdout: (t) => void (session.out += t),
        stderr: (t) => void (session.err += t),
      });
    },
  };
  return session;
}
