/** Audit events, rows and queries, plus the pure helpers the store and the UI share. */
export * from './audit-event';
export * from './audit-row';
export * from './audit-text';
export * from './canonical-json';
export * from './redact';
