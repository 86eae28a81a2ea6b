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
