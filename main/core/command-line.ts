/** Renders a launch spec as one shell-quoted line, so the user always sees the full command. */
import type { LaunchSpec, RemoteSpec, Server } from '../../app/policy/policy-schema';

/** Quotes one argument for a POSIX shell, only when it needs it. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The whole command line of a launch spec. */
export function formatCommandLine(launch: LaunchSpec): string {
  return [launch.command, ...launch.args].map(shellQuote).join(' ');
}

/** A remote server's upstream as one line: its URL, transport and header names (never values). */
export function formatRemote(remote: RemoteSpec): string {
  const names = remote.headers.map((h) => h.name);
  return `${remote.url} (${remote.transport}${names.length ? `; headers ${names.join(', ')}` : ''})`;
}

/** What a server runs: its full command line, or a remote server's URL line. */
export function formatServerSource(server: Pick<Server, 'launch' | 'remote'>): string {
  if (server.launch) return formatCommandLine(server.launch);
  return server.remote ? formatRemote(server.remote) : '';
}
