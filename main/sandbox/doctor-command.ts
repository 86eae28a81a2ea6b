/**
 * `warden doctor [--verify] [--json]`: what this host can enforce — the sandbox backend, each
 * capability it needs, and how each resource limit is enforced — and for anything missing, the
 * exact remedy. With `--verify` it also attempts real escapes inside the backend and shows each
 * result; without it, it shows the kept result, and runs the probes again when the kernel, the
 * backend's version or the AppArmor state changed since. Exits 0 when sandboxed launches work
 * here (and, with --verify, every escape was refused), 1 otherwise.
 */
import type { DoctorReport, Verification } from '../../app/contract/doctor';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, EXIT_USAGE } from '../cli/cli-io';
import { resolveWardenHome } from '../config/warden-home';
import type { SandboxBackend } from './backend';
import { selectBackend } from './select-backend';
import { loadVerifications, verifyIfStale, verifyNow } from './verify/verification-store';

const limitLabels: Record<keyof DoctorReport['limits'], string> = {
  memoryMb: 'memory',
  pids: 'processes',
  cpuSeconds: 'CPU time',
  openFiles: 'open files',
  wallSeconds: 'wall time',
};

/** The report as text for a terminal. */
export function formatDoctorReport(report: DoctorReport): string {
  const lines: string[] = [];
  const b = report.backend;
  lines.push(
    `Sandbox backend: ${b.name}${b.version ? ` ${b.version}` : ''} on ${report.platform}/${report.arch}: ` +
      (b.available ? 'available' : 'NOT AVAILABLE — sandboxed servers will be refused'),
    '',
  );
  for (const c of report.checks) {
    const mark = c.status === 'ok' ? 'ok      ' : c.status === 'missing' ? 'MISSING ' : 'degraded';
    lines.push(`  [${mark}] ${c.label}: ${c.detail}`);
    if (c.remedy) lines.push(`             remedy: ${c.remedy}`);
  }
  lines.push('', 'Limits:');
  for (const [name, support] of Object.entries(report.limits)) {
    const label = limitLabels[name as keyof DoctorReport['limits']] ?? name;
    const mark = support.partial
      ? 'per process '
      : support.enforced
        ? 'enforced    '
        : 'NOT enforced';
    lines.push(`  ${mark}  ${label}: ${support.how}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A verification as text: when, on which backend, and each probe's result. */
export function formatVerification(v: Verification): string {
  const lines = [
    `${v.passed ? 'Verified' : 'VERIFICATION FAILED'}: escape probes in ${v.backend} at ${v.at}`,
  ];
  for (const p of v.probes) {
    const mark =
      p.status === 'refused' ? 'refused' : p.status === 'escaped' ? 'ESCAPED' : 'NOT RUN';
    lines.push(`  ${mark.padEnd(8)} ${p.id}: ${p.label}: ${p.detail}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `warden doctor ARGS`; returns 0 when sandboxing works here, 1 when it does not. */
export async function runDoctorCommand(
  args: string[],
  io: CliIo,
  deps: { backend?: SandboxBackend; wardenHome?: string } = {},
): Promise<number> {
  const unknown = args.find((a) => a !== '--json' && a !== '--verify');
  if (unknown !== undefined) {
    io.stderr(
      `warden: doctor: unknown option "${showUntrusted(unknown)}" (expected: warden doctor [--verify] [--json])\n`,
    );
    return EXIT_USAGE;
  }
  const backend = deps.backend ?? selectBackend();
  const home = deps.wardenHome ?? resolveWardenHome();
  const report = await backend.probe();
  let verification: Verification | undefined;
  if (args.includes('--verify') && report.backend.available) {
    verification = await verifyNow(home, backend, report);
  } else if (!args.includes('--verify')) {
    // Only a result already kept is refreshed here; the first run is asked for (or the app's).
    const kept = await loadVerifications(home);
    if (kept.some((v) => v.backend === backend.name)) {
      verification = await verifyIfStale(home, backend, report);
    }
  }
  const full: DoctorReport = verification ? { ...report, verifications: [verification] } : report;
  if (args.includes('--json')) io.stdout(`${terminalJson(full)}\n`);
  else {
    // Probe output (paths, a tool's own messages) is shown escaped.
    io.stdout(showUntrusted(formatDoctorReport(report), { multiline: true }));
    io.stdout(
      verification
        ? `\n${showUntrusted(formatVerification(verification), { multiline: true })}`
        : report.backend.available
          ? '\nNot verified on this host yet: `warden doctor --verify` attempts real escapes in the sandbox.\n'
          : '',
    );
  }
  const verified = verification === undefined || verification.passed;
  return report.backend.available && (verified || !args.includes('--verify')) ? 0 : 1;
}
