/**
 * A Warden home in a fresh folder for each test, beside a managed policy file holding `rules`
 * (mode 0644), both named in the environment that the CLI and the core read; a CLI whose output
 * the test reads from `out` and `errs`, and a core whose servers run as plain processes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { runCli } from '../../main/cli/cli';
import { createCore } from '../../main/core/core';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { plainLauncher } from './plain-launcher';
import { tempDirEach } from './temp-dir';

export function managedHomeEach(prefix: string, rules: object) {
  const h = { base: '', managed: '', out: '', errs: '' };
  const io = {
    stdout: (s: string) => void (h.out += s),
    stderr: (s: string) => void (h.errs += s),
  };
  tempDirEach(prefix, (d) => (h.base = d));
  beforeEach(async () => {
    h.managed = join(h.base, 'managed-policy.json');
    await writeFile(h.managed, JSON.stringify(rules), { mode: 0o644 });
    process.env.WARDEN_HOME = join(h.base, 'home');
    process.env.WARDEN_MANAGED_POLICY = h.managed;
    h.out = '';
    h.errs = '';
  });
  afterEach(() => {
    delete process.env.WARDEN_HOME;
    delete process.env.WARDEN_MANAGED_POLICY;
  });
  return Object.assign(h, {
    io,
    cli: (...args: string[]) => runCli(args, io),
    /** A core on the test's home whose servers run as plain processes. */
    openCore: () =>
      createCore({
        wardenHome: join(h.base, 'home'),
        backend: unsandboxedBackend(),
        launcher: plainLauncher(),
      }),
  });
}
