/**
 * `warden doctor [--json]`: what this host can enforce — the sandbox backend, each capability it
 * needs, and how each resource limit is enforced — and for anything missing, the exact remedy.
 * Exits 0 when sandboxed launches work here, 1 when they would be refused.
 */
import type { DoctorReport } from '../../app/contract/doctor';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, EXIT_USAGE } from '../cli/cli-io';
import type { SandboxBackend } from './backend';
import { selectBackend } from './select-backend';

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
    lines.push(`  ${support.enforced ? 'enforced    ' : 'NOT enforced'}  ${label}: ${support.how}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `warden doctor ARGS`; returns 0 when sandboxing works here, 1 when it does not. */
export async function runDoctorCommand(
  args: string[],
  io: CliIo,
  deps: { backend?: SandboxBackend } = {},
): Promise<number> {
  const unknown = args.find((a) => a !== '--json');
  if (unknown !== undefined) {
    io.stderr(
      `warden: doctor: unknown option "${showUntrusted(unknown)}" (expected: warden doctor [--json])\n`,
    );
    return EXIT_USAGE;
  }
  const report = await (deps.backend ?? selectBackend()).probe();
  io.stdout(
    args.includes('--json')
      ? `${terminalJson(report)}\n`
      : // Probe output (paths, a tool's own messages) is shown escaped.
        showUntrusted(formatDoctorReport(report), { multiline: true }),
  );
  return report.backend.available ? 0 : 1;
}
