/**
 * The floor of a launch without Node, for `first-response`: the sandbox plan Warden compiles for
 * a server (bubblewrap, its seccomp program and generated files, the clean environment, the
 * cgroup prefix) written into a shell script that starts it before any Node process, with the
 * server's stdin and stdout on FIFOs that a bare Node line relay (`fifo-hop.mjs`) opens once it
 * has started. Nothing checks that the plan is still the policy's: this measures what such a
 * launch could reach, it is not one.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Server } from '../app/policy/policy-schema';
import type { Guards } from '../app/policy/guards';
import { launchPolicy } from '../main/config/guard-layers';
import type { SandboxBackend } from '../main/sandbox/backend';

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Writes the script into `dir` and returns its path, or why there is none. */
export async function writeShellLaunch(
  backend: SandboxBackend,
  server: Readonly<Server>,
  guards: Guards | undefined,
  dir: string,
  hop: string,
): Promise<{ script: string } | { reason: string }> {
  if (!server.launch) return { reason: `${server.name} has no command` };
  const real = backend.resolve ? await backend.resolve() : backend;
  if (real.name !== 'bwrap')
    return { reason: `the sandbox backend is ${real.name}, not bubblewrap` };
  const policy = await launchPolicy(structuredClone<Server['policy']>(server.policy), {
    global: guards,
  });
  if (!policy.ok) return { reason: policy.error.message };
  if (policy.value.network.mode !== 'none') return { reason: `${server.name} has a network` };
  const instanceDir = join(dir, 'instance');
  await mkdir(instanceDir, { recursive: true, mode: 0o700 });
  const compiled = await real.compile(policy.value, server.launch, {
    serverName: server.name,
    instanceDir,
    hostEnv: process.env,
    secrets: {},
  });
  if (!compiled.ok) return { reason: compiled.error.message };
  const plan = compiled.value;
  const fds: string[] = [];
  for (const [i, data] of plan.fdData.entries()) {
    const file = join(dir, `fd${3 + i}`);
    await writeFile(file, data, { mode: 0o600 });
    fds.push(`${3 + i}<${quote(file)}`);
  }
  const env = Object.entries(plan.env).map(([k, v]) => quote(`${k}=${v}`));
  const script = join(dir, 'launch.sh');
  const lines = [
    '#!/bin/sh',
    'd=$(mktemp -d) || exit 70',
    'mkfifo "$d/in" "$d/out" || exit 70',
    ...(plan.createDirs ?? []).map((c) => `mkdir -p ${quote(c)} 2>/dev/null`),
    `env -i ${env.join(' ')} ${plan.argv.map(quote).join(' ')} ${fds.join(' ')} 0<>"$d/in" 1<>"$d/out" 2>/dev/null &`,
    'unset NODE_EXTRA_CA_CERTS',
    `exec ${quote(process.execPath)} ${quote(hop)} "$d" "$!" ${(plan.cleanupDirs ?? []).map(quote).join(' ')}`,
    '',
  ];
  await writeFile(script, lines.join('\n'), { mode: 0o700 });
  await chmod(script, 0o700);
  return { script };
}
