/**
 * What the Landlock backend does not give that the bubblewrap backend gives. Shown as they are in
 * `warden doctor`, the Host screen and a server's details, so nobody takes one for the other.
 */

/** Each protection bubblewrap adds that a Landlock sandbox lacks, one sentence each. */
export const LANDLOCK_GAPS: readonly string[] = [
  'no private PID view: the host’s processes and their command lines are listed in /proc (signals and ptrace to them are refused)',
  'no private /tmp path: TMPDIR and HOME point to a private folder, the host’s /tmp stays where it is (unreadable and unwritable outside declared roots)',
  'no private network namespace: TCP is limited to the egress proxy’s port by Landlock and a filter refuses UDP and raw sockets, instead of there being no route at all',
  '/proc is the host’s, read-only, without the masks bubblewrap mounts (kallsyms, timer and slab details stay readable where the host allows it)',
  'the host’s /etc/passwd, /etc/group and /etc/hosts are shown instead of generated ones, and the host name is the host’s',
  'the private folder is on disk: its files are not counted against the memory limit and not size-limited',
  'hidden paths (credential folders, .env files, Warden’s own state) inside a declared root are kept out of reach rather than masked: their names show in a listing, and so do the names in a hidden folder, none of which can be read',
  'the modes and times of files it may only read can be changed (Landlock does not govern chmod or utime): a git hook the user left not executable could be made executable; the filter refuses set-ID bits and write for others everywhere',
  'a hidden path, or a workspace file kept read-only in a writable folder (.git, .vscode …), is kept by granting the entries around it one by one: in the folders on the way to it the server cannot create, remove or rename entries, nor reach one added there after it started',
  'processes that detach are stopped by the launcher that reaps them (SIGTERM, then SIGKILL a second later), not by a PID namespace: should the launcher itself be killed with SIGKILL first, they outlive the server',
];

/** The isolation badge's text for a backend name ("bwrap", "landlock", "seatbelt"). */
export function backendLabel(name: string): string {
  return name === 'landlock' ? 'Sandboxed (Landlock)' : 'Sandboxed';
}
