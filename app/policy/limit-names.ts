/** The resource limits a policy can declare, by name (no schema: the launch path uses it). */
export const limitNames = ['memoryMb', 'pids', 'cpuSeconds', 'openFiles', 'wallSeconds'] as const;
export type LimitName = (typeof limitNames)[number];
