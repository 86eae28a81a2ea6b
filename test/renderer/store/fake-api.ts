/** A contract client double for store tests: canned answers per operation, events on demand. */
import type { WardenApi } from '../../../app/contract/api';
import type { AuditRow } from '../../../app/audit/audit-row';
import { ContractCallError, type ContractError } from '../../../app/contract/contract-error';

export function fakeApi(answers: Record<string, (input: unknown) => Promise<unknown>> = {}) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const calls: Array<{ op: string; input: unknown }> = [];
  const api = new Proxy(
    {},
    {
      get: (_t, key: string) => {
        if (key === 'on') {
          return (event: string, l: (p: unknown) => void) => {
            listeners.set(event, l);
            return () => listeners.delete(event);
          };
        }
        return (input: unknown) => {
          calls.push({ op: key, input });
          const answer = answers[key];
          if (answer) return answer(input);
          return Promise.resolve(key === 'audit.query' ? { rows: [] } : []);
        };
      },
    },
  ) as WardenApi;
  return { api, listeners, calls };
}

/** An answer that refuses every call with `error`, as the core does. */
export function refusing(error: ContractError): () => Promise<never> {
  return () => Promise.reject(new ContractCallError(error));
}

/** An audit row for tests: an MCP request from `server`, or any event given. */
export function auditRow(id: number, over: Partial<AuditRow> = {}): AuditRow {
  const server = over.server ?? 'github';
  return {
    id,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
    kind: 'mcp.request',
    server,
    instance: 'i-1',
    outcome: 'info',
    event: {
      kind: 'mcp.request',
      ts: '2026-01-01T00:00:00.000Z',
      server,
      instance: 'i-1',
      outcome: 'info',
      requestId: id,
      method: 'tools/call',
      tool: 'search_issues',
      args: { q: `n${id}` },
      sizeBytes: 10,
    },
    hash: 'h'.repeat(64),
    prevHash: 'p'.repeat(64),
    ...over,
  };
}

/** A frame scheduler the test runs by hand. */
export function manualFrames() {
  const queue: Array<() => void> = [];
  return {
    schedule: (run: () => void) => void queue.push(run),
    runFrame: () => queue.splice(0).forEach((run) => run()),
    pending: () => queue.length,
  };
}

/** A clock and timers the test moves by hand, for what is paced in time. */
export function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; run: () => void }> = [];
  return {
    clock: {
      now: () => now,
      after: (ms: number, run: () => void) => void timers.push({ at: now + ms, run }),
    },
    /** Moves the time on by `ms`, running the timers that fall due. */
    advance: (ms: number) => {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      due.forEach((t) => t.run());
    },
  };
}
