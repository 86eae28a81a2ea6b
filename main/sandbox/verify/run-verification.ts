/**
 * Runs the escape probes inside a sandbox backend through the same compile and spawn path a real
 * launch takes, and reports each result. Nothing here loosens the sandbox for the probes: each is
 * a default sandboxed policy plus the folder or limit the probe needs.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Verification, VerifyProbe } from '../../../app/contract/doctor';
import { defaultPolicy } from '../../../app/policy/defaults';
import type { SandboxBackend } from '../backend';
import { spawnPlan } from '../spawn-plan';
import { type EscapeProbe, escapeProbes, judgeProbe } from './escape-probes';

export interface VerifyOptions {
  probes?: readonly EscapeProbe[];
  /** Per probe, in milliseconds (default 20 s). */
  timeoutMs?: number;
  /** What the result depends on (see `verification-store.ts`). */
  host?: Record<string, string>;
  now?: () => Date;
}

/** Runs every probe in `backend`, one after another, and returns the verification. */
export async function runVerification(
  backend: SandboxBackend,
  options: VerifyOptions = {},
): Promise<Verification> {
  const probes: VerifyProbe[] = [];
  const work = await mkdtemp(join(tmpdir(), 'warden-verify-'));
  try {
    const all = options.probes ?? escapeProbes;
    for (const probe of all.filter((p) => p.platforms?.includes(process.platform) ?? true)) {
      probes.push(await runProbe(backend, probe, work, options.timeoutMs ?? 20_000));
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return {
    backend: backend.name,
    at: (options.now ?? (() => new Date()))().toISOString(),
    passed: probes.every((p) => p.status === 'refused'),
    probes,
    host: options.host ?? {},
  };
}

async function runProbe(
  backend: SandboxBackend,
  probe: EscapeProbe,
  work: string,
  timeoutMs: number,
): Promise<VerifyProbe> {
  const base = { id: probe.id, label: probe.label };
  const dir = join(work, probe.id);
  const prepared = await probe.prepare(dir);
  try {
    if (prepared.unavailable) return { ...base, status: 'not-run', detail: prepared.unavailable };
    const policy = defaultPolicy();
    prepared.policy(policy);
    const [first, ...args] = prepared.command as [string, ...string[]];
    let command = first;
    if (first === 'node') {
      // Warden's own runtime, visible read-only; Electron's binary runs as Node with this.
      command = await realpath(process.execPath);
      policy.filesystem.roots.push({ path: dirname(command), access: 'read' });
      policy.env.set.ELECTRON_RUN_AS_NODE = { kind: 'plain', value: '1' };
    }
    const compiled = await backend.compile(
      policy,
      { command, args },
      {
        instanceDir: work,
        hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
        secrets: {},
      },
    );
    if (!compiled.ok) {
      // A declared limit the host cannot hold refuses the launch: that is the sandbox refusing.
      const refused = compiled.error.kind === 'limit-unsupported';
      return {
        ...base,
        status: refused ? 'refused' : 'not-run',
        detail: `launch refused (${compiled.error.kind}): ${compiled.error.message}`,
      };
    }
    const spawned = await spawnPlan(compiled.value, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    spawned.child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    spawned.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => void spawned.stop(), timeoutMs);
    const exit = await spawned.exited.finally(() => clearTimeout(timer));
    const code = exit.code ?? (exit.signal ? 128 + constants.signals[exit.signal] : null);
    return judgeProbe(probe, { code, stdout, stderr });
  } finally {
    await prepared.close();
  }
}
