/** The audit log store and its CLI command (docs/architecture.md, "State": audit.db). */
export { AUDIT_HELP, runAuditCommand } from './audit-cli';
export { AUDIT_SCHEMA_VERSION, type AuditStoreError } from './audit-db';
export { CORE_AUDIT_FLOOD_GUARD, type FloodGuardOptions } from './audit-flood-guard';
export { canonicalRowText, GENESIS_HASH, type HashedRow, rowHash } from './audit-hash';
export type { AuditFilter } from './audit-query';
export {
  type AuditStore,
  type AuditStoreOptions,
  type PruneResult,
  openAuditStore,
} from './audit-store';
export { verifyChain } from './audit-verify';
