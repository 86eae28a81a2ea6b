/** The words the UI uses for each resource limit, instead of its policy key. */
import type { LimitName } from './policy-schema';

export const limitLabels: Record<LimitName, string> = {
  memoryMb: 'Memory (MB)',
  pids: 'Processes',
  cpuSeconds: 'CPU time (seconds)',
  openFiles: 'Open files',
  wallSeconds: 'Wall time (seconds)',
};

/** A limit set to `n`, in a sentence ("memory 1024 MB"). */
export const limitWords: Record<LimitName, (n: number) => string> = {
  memoryMb: (n) => `memory ${n} MB`,
  pids: (n) => `${n} processes`,
  cpuSeconds: (n) => `CPU time ${n} s`,
  openFiles: (n) => `${n} open files`,
  wallSeconds: (n) => `wall time ${n} s`,
};
