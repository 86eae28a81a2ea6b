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
];

/**
 * The kinds a filter naming `kinds` selects: a call recorded in one row (`mcp.call`) is its
 * request and its response, so a filter by either selects it too.
 */
export function kindsSelected<K extends string>(kinds: readonly K[]): (K | 'mcp.call')[] {
  const mcp = kinds.some((k) => k === 'mcp.request' || k === 'mcp.response');
  return mcp && !kinds.some((k) => k === 'mcp.call') ? [...kinds, 'mcp.call'] : [...kinds];
}
