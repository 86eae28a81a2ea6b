import type { AuditKind } from './audit-event';

/**
 * The names of the audit event kinds, in the schema's order, as plain data for help text and
 * menus that must not load the schema itself. A test keeps this list equal to the schema's.
 */
export const AUDIT_KINDS: readonly string[] = [
  'instance.lifecycle',
  'sandbox.launch',
  'network.decision',
  'grant.requested',
  'grant.decided',
  'mcp.request',
  'mcp.response',
  'mcp.call',
  'tool.drift',
  'policy.changed',
  'limit.hit',
  'approval.requested',
  'approval.decided',
  'sandbox.violation',
  'audit.summary',
  'audit.anchor',
  'audit.pruned',
  'audit.truncated',
  'core.error',
  'tool.arg-refused',
  'credential.found',
  'roots.answered',
  'folder.requested',
  'folder.decided',
  'mcp.server-request',
  'mcp.client-answer',
];

/**
 * The kinds a filter naming `kinds` selects: a call recorded in one row (`mcp.call`) is its
 * request and its response, so a filter by either selects it too.
 */
export function kindsSelected<K extends string>(kinds: readonly K[]): (K | 'mcp.call')[] {
  const mcp = kinds.some((k) => k === 'mcp.request' || k === 'mcp.response');
  return mcp && !kinds.some((k) => k === 'mcp.call') ? [...kinds, 'mcp.call'] : [...kinds];
}

/**
 * Whether a row can be half of an exchange: a server's request Warden refused was never passed
 * on, so it has no answer (a later answer under its id is the answer to an earlier request).
 */
export function hasPair(e: { kind: string; outcome: string }): boolean {
  return !(e.kind === 'mcp.server-request' && e.outcome === 'refused');
}

/**
 * The kind of the other half of an exchange recorded in two rows, matched by instance and
 * JSON-RPC id: a request's answer comes after it, an answer's request before it.
 */
export function pairKind(kind: string): { kind: AuditKind; before: boolean } | undefined {
  switch (kind) {
    case 'mcp.request':
      return { kind: 'mcp.response', before: false };
    case 'mcp.response':
      return { kind: 'mcp.request', before: true };
    case 'mcp.server-request':
      return { kind: 'mcp.client-answer', before: false };
    case 'mcp.client-answer':
      return { kind: 'mcp.server-request', before: true };
    default:
      return undefined;
  }
}
