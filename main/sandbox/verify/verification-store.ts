/**
 * Verification results kept in Warden's state folder (`verification.json`), one per backend,
 * with the host facts they depend on: the kernel, the backend's version and the AppArmor state.
 * When any of these changes, the kept result no longer describes this host, and the next
 * `warden doctor` (or the app at start) runs the probes again.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { release } from 'node:os';
import { join } from 'node:path';
import { type Verification, verificationSchema } from '../../../app/contract/doctor';
import type { DoctorReport } from '../../../app/contract/doctor';
import { writeFileAtomic } from '../../config/atomic-write';
import { withLockFile } from '../../core/core-lock';
import type { SandboxBackend } from '../backend';
import { runVerification, type VerifyOptions } from './run-verification';

const FILE = 'verification.json';

async function readTrim(path: string): Promise<string> {
  return (await readFile(path, 'utf8').catch(() => 'absent')).trim();
}

/** The facts a verification depends on, for this host and backend. */
export async function verificationHost(report: DoctorReport): Promise<Record<string, string>> {
  return {
    kernel: release(),
    backend: `${report.backend.name} ${report.backend.version ?? ''}`.trim(),
    apparmor: await readTrim('/sys/module/apparmor/parameters/enabled'),
    apparmorUserns: await readTrim('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
  };
}

/** The kept results, newest per backend; a missing or unreadable file keeps none. */
export async function loadVerifications(home: string): Promise<Verification[]> {
  try {
    const parsed = verificationSchema
      .array()
      .safeParse(JSON.parse(await readFile(join(home, FILE), 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * Keeps `result` in place of the backend's previous one, under the file's lock (another process
 * may be keeping another backend's result at the same moment).
 */
export async function saveVerification(home: string, result: Verification): Promise<void> {
  // The first command run on a machine may be this one: the state folder may not exist yet.
  await mkdir(home, { recursive: true, mode: 0o700 });
  await withLockFile(join(home, FILE), 'a change to the verification results', async () => {
    const kept = (await loadVerifications(home)).filter((v) => v.backend !== result.backend);
    await writeFileAtomic(join(home, FILE), `${JSON.stringify([...kept, result], null, 2)}\n`);
  });
}

const sameHost = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys({ ...a, ...b }).every((k) => a[k] === b[k]);

/** Runs the probes now in `backend` and keeps the result. */
export async function verifyNow(
  home: string,
  backend: SandboxBackend,
  report: DoctorReport,
  options: VerifyOptions = {},
): Promise<Verification> {
  const host = await verificationHost(report);
  const result = await runVerification(backend, { ...options, host });
  await saveVerification(home, result);
  return result;
}

/**
 * The kept result for the backend, run afresh first when there is none, or when the kernel,
 * the backend's version or the AppArmor state changed since. Nothing runs where the backend is
 * unavailable (there is nothing to verify; doctor says why).
 */
export async function verifyIfStale(
  home: string,
  backend: SandboxBackend,
  report: DoctorReport,
  options: VerifyOptions = {},
): Promise<Verification | undefined> {
  if (!report.backend.available) return undefined;
  const kept = (await loadVerifications(home)).find((v) => v.backend === backend.name);
  if (kept && sameHost(kept.host, await verificationHost(report))) return kept;
  return verifyNow(home, backend, report, options);
}
