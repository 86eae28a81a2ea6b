/** Defaults for new and imported servers: sandboxed, no files, no network, no extra env. */
import type { LimitName, Limits, Policy } from './policy-schema';

/** A fresh default policy (a new object each call, safe to mutate). */
export function defaultPolicy(): Policy {
  return {
    isolation: 'sandbox',
    filesystem: { roots: [] },
    network: { mode: 'none', allow: [], deny: [], allowAddresses: [], askTimeoutSeconds: 60 },
    env: { pass: [], set: {} },
    limits: { bestEffort: [] },
    tools: { disabled: [], approval: [], pinned: {}, approvalTimeoutSeconds: 120 },
    idleTimeoutSeconds: 1800,
  };
}

/**
 * Limits every sandboxed server gets when its policy does not declare them, so that a server
 * nobody limited still cannot exhaust the machine: 1 GiB of memory and 256 processes. They are
 * best-effort: where the host cannot hold them for the whole sandbox, the server still starts
 * and the launch carries a note saying so. A declared limit replaces the default.
 */
export const DEFAULT_LIMITS: Readonly<Partial<Record<LimitName, number>>> = {
  memoryMb: 1024,
  pids: 256,
};

/** The limits a launch applies: the declared ones, plus each default the policy leaves out. */
export function effectiveLimits(limits: Limits): { limits: Limits; defaulted: LimitName[] } {
  const out: Limits = { ...limits, bestEffort: [...limits.bestEffort] };
  const defaulted: LimitName[] = [];
  for (const [name, value] of Object.entries(DEFAULT_LIMITS) as [LimitName, number][]) {
    if (out[name] !== undefined) continue;
    out[name] = value;
    defaulted.push(name);
    if (!out.bestEffort.includes(name)) out.bestEffort.push(name);
  }
  return { limits: out, defaulted };
}

/** Units the limits are declared in, for showing them. */
const limitUnits: Readonly<Record<LimitName, string>> = {
  memoryMb: 'MB',
  pids: 'processes',
  cpuSeconds: 'CPU seconds',
  openFiles: 'open files',
  wallSeconds: 'seconds',
};

/**
 * The limits a sandboxed launch applies, as short labels for `servers show` and the UI:
 * e.g. "memory 1024 MB (default, best-effort)", "open files 64".
 */
export function describeLimits(limits: Limits, sandboxed = true): string[] {
  const { limits: all, defaulted } = sandboxed
    ? effectiveLimits(limits)
    : { limits, defaulted: [] as LimitName[] };
  const out: string[] = [];
  for (const [name, unit] of Object.entries(limitUnits) as [LimitName, string][]) {
    const value = all[name];
    if (value === undefined) continue;
    const label = name === 'memoryMb' ? 'memory' : '';
    const notes = [
      ...(defaulted.includes(name) ? ['default'] : []),
      ...(all.bestEffort.includes(name) ? ['best-effort'] : []),
    ];
    out.push(
      `${label ? `${label} ` : ''}${value} ${unit}${notes.length ? ` (${notes.join(', ')})` : ''}`,
    );
  }
  return out;
}
