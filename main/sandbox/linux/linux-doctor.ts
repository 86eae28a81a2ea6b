/** Turns the Linux host facts into the DoctorReport that `warden doctor` and the UI show. */
import type { DoctorCheck, DoctorReport } from '../../../app/contract/doctor';
import type { Capability, LinuxHostFacts } from './host-facts';
import { sandboxUsable } from './host-facts';
import { limitSupport } from './limits';
import { bwrapHasDisableUserns } from './probe';

function check(id: string, label: string, c: Capability): DoctorCheck {
  return c.ok
    ? { id, label, status: 'ok', detail: c.detail }
    : { id, label, status: 'missing', detail: c.detail, remedy: c.remedy };
}

/** The report for this host: each capability with its remedy, and how each limit is enforced. */
export function linuxDoctorReport(facts: LinuxHostFacts): DoctorReport {
  const checks: DoctorCheck[] = [
    facts.bwrap.ok && !bwrapHasDisableUserns(facts.bwrap.version)
      ? {
          id: 'bwrap',
          label: 'bubblewrap',
          status: 'degraded',
          detail: `bubblewrap ${facts.bwrap.version} at ${facts.bwrap.path} lacks --disable-userns (0.8.0+); new user namespaces are refused by the seccomp filter alone`,
          remedy: 'upgrade bubblewrap to 0.8.0 or later',
        }
      : facts.bwrap.ok
        ? {
            id: 'bwrap',
            label: 'bubblewrap',
            status: 'ok',
            detail: `bubblewrap ${facts.bwrap.version} at ${facts.bwrap.path}`,
          }
        : {
            id: 'bwrap',
            label: 'bubblewrap',
            status: 'missing',
            detail: facts.bwrap.detail,
            remedy: facts.bwrap.remedy,
          },
    check('userns', 'Unprivileged user namespaces', facts.userns),
    check('seccomp', 'Seccomp filter', facts.seccomp),
    facts.prlimitPath
      ? { id: 'prlimit', label: 'prlimit (rlimits)', status: 'ok', detail: facts.prlimitPath }
      : {
          id: 'prlimit',
          label: 'prlimit (rlimits)',
          status: 'degraded',
          detail: 'prlimit was not found: memory, process, CPU and open-file limits cannot be set',
          remedy: 'install util-linux: `sudo apt install util-linux`',
        },
    facts.cgroup.pids || facts.cgroup.memory
      ? { id: 'cgroup', label: 'cgroup limits', status: 'ok', detail: facts.cgroup.detail }
      : facts.systemdScope.ok
        ? {
            id: 'cgroup',
            label: 'cgroup limits',
            status: 'ok',
            detail: `${facts.cgroup.detail}; memory and processes are held for the whole sandbox by ${facts.systemdScope.detail}`,
          }
        : {
            id: 'cgroup',
            label: 'cgroup limits',
            status: 'degraded',
            detail: `${facts.cgroup.detail}, and no systemd user scope (${facts.systemdScope.detail}); memory is limited per process (RLIMIT_AS, sized tmpfs, memfd_create, shmget and msgget refused) instead of for the whole sandbox, and the default memory limit is not applied`,
            remedy:
              'for whole-sandbox memory and process limits, run Warden in a systemd user session where ' +
              '`systemd-run --user --scope` works, or give it a cgroup v2 subtree with the pids and memory ' +
              'controllers enabled for its children (a systemd user service with Delegate=yes)',
          },
  ];
  if (facts.isRoot) {
    checks.push({
      id: 'identity',
      label: 'Warden runs as root',
      status: 'degraded',
      detail:
        'sandboxed processes run as uid 0 without any capability: files root owns stay readable where they are visible (system folders, declared roots)',
      remedy: 'run Warden as an ordinary user',
    });
  }
  return {
    platform: 'linux',
    arch: process.arch,
    backend: {
      name: 'bwrap',
      available: sandboxUsable(facts),
      ...(facts.bwrap.ok ? { version: facts.bwrap.version } : {}),
    },
    checks,
    limits: limitSupport(facts),
  };
}
