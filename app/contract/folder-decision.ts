/**
 * What a folder decision means, apart from the contract's schemas (folder-grants.ts): the core
 * that relays a session reads it without loading zod.
 */
import type { FolderDecision } from './folder-grants';

/** The parts of a decision: allowed or not, the access, and whether it is saved. */
export function folderDecisionParts(
  d: FolderDecision,
): { allow: false } | { allow: true; access: 'read' | 'write'; always: boolean } {
  if (d === 'deny') return { allow: false };
  return {
    allow: true,
    access: d.includes('write') ? 'write' : 'read',
    always: d.endsWith('always'),
  };
}
