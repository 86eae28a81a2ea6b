/** Host facts of a Linux host that can sandbox, for tests that inject facts instead of probing. */
import type { LinuxHostFacts } from '../../main/sandbox/linux/host-facts';

/** A fresh copy each call, safe to change. */
export function usableHostFacts(): LinuxHostFacts {
  return {
    kernel: '6.8.0',
    isRoot: false,
    bwrap: { ok: true, path: '/usr/bin/bwrap', version: '0.8.0' },
    userns: { ok: true, detail: 'ok' },
    seccomp: { ok: true, detail: 'ok' },
    prlimitPath: '/usr/bin/prlimit',
    nprocPerUserns: true,
    systemdScope: { ok: false, detail: 'none', remedy: 'none' },
    cgroup: { pids: null, memory: null, detail: 'none' },
  };
}
