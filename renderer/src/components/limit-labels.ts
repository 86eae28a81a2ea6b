/** The words the UI uses for each resource limit, instead of its policy key. */
import type { LimitName } from '../../../app/policy/policy-schema';

export const limitLabels: Record<LimitName, string> = {
  memoryMb: 'Memory (MB)',
  pids: 'Processes',
  cpuSeconds: 'CPU time (seconds)',
  openFiles: 'Open files',
  wallSeconds: 'Wall time (seconds)',
};

/** Host check statuses as shown. */
export const checkStatusLabels: Record<'ok' | 'missing' | 'degraded', string> = {
  ok: 'OK',
  missing: 'Missing',
  degraded: 'Degraded',
};
