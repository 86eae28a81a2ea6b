/** Defaults for new and imported servers: sandboxed, no files, no network, no extra env. */
import type { Policy } from './policy-schema';

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
