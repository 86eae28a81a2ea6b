/** Event factories shared by the audit store tests and the benchmark. */
import Database from 'better-sqlite3';
import type { AuditEventInput } from '../../app/audit/audit-event';

/** A network decision of `server`, numbered `n` (host and bytes vary with `n`). */
export function netEvent(server: string, n: number, ts?: string): AuditEventInput {
  return {
    kind: 'network.decision',
    ts,
    server,
    instance: `${server}#1`,
    outcome: n % 3 === 0 ? 'refused' : 'ok',
    host: `host${n % 50}.example.com`,
    port: 443,
    decision: n % 3 === 0 ? 'deny' : 'allow',
    by: n % 3 === 0 ? 'default' : 'rule',
    bytesUp: n * 10,
    bytesDown: n * 100,
    durationMs: n % 1000,
  };
}

/** What call `n` of `server` and its answer share. */
function callN(server: string, n: number) {
  return {
    server,
    instance: `${server}#1`,
    requestId: n,
    method: 'tools/call',
    tool: n % 2 === 0 ? 'search_issues' : 'read_file',
  };
}

/** A tool call of `server` with `args`. */
export function callEvent(server: string, n: number, args: unknown, ts?: string): AuditEventInput {
  return {
    kind: 'mcp.request',
    ts,
    ...callN(server, n),
    outcome: 'info',
    args,
    sizeBytes: 120 + (n % 400),
  };
}

/** The answer to call `n` of `server` (see `callEvent`), with `extra` over it. */
export function answerEvent(
  server: string,
  n: number,
  extra: Partial<AuditEventInput> = {},
): AuditEventInput {
  return {
    kind: 'mcp.response',
    ...callN(server, n),
    outcome: 'ok',
    resultSummary: '1 content block',
    durationMs: 0.4,
    sizeBytes: 64,
    ...extra,
  } as AuditEventInput;
}

/** Edits row `id` of the log file `path` behind the store's back: its port 443 becomes 22. */
export function tamperWithRow(path: string, id: number): void {
  const db = new Database(path);
  db.prepare(`UPDATE audit SET body = replace(body, '"port":443', '"port":22') WHERE id = ?`).run(
    id,
  );
  db.close();
}
