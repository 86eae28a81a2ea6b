/** Builds what the UI shows of a server: the stored server plus the truth about its isolation. */
import type { DoctorReport } from '../../app/contract/doctor';
import type { ServerView } from '../../app/contract/servers';
import type { Server } from '../../app/policy/policy-schema';
import { formatServerSource } from './command-line';

/** What a view needs of the host report: the backend, and the checks that say why it fails. */
export type HostBackend = Pick<DoctorReport, 'backend' | 'checks'>;

/** The isolation badge for `server` on a host described by `report`. */
export function isolationView(server: Server, report: HostBackend): ServerView['isolation'] {
  if (server.remote) return { kind: 'remote', transport: server.remote.transport };
  if (server.policy.isolation === 'off') return { kind: 'off' };
  if (report.backend.available) return { kind: 'sandboxed', backend: report.backend.name };
  const failing = report.checks.find((c) => c.status !== 'ok');
  return {
    kind: 'unavailable',
    reason: failing?.detail ?? `the ${report.backend.name} backend is not available on this host`,
    remedy: failing?.remedy ?? 'run `warden doctor` for details',
  };
}

/** The full view of one server. */
export function serverView(server: Server, report: HostBackend): ServerView {
  return {
    server,
    commandLine: formatServerSource(server),
    isolation: isolationView(server, report),
  };
}
