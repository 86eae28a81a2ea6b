/**
 * The revision of a stored section of config.json (the global part, the audit log's settings): a
 * stamp of its content, so that an editor can say which copy it started from and be refused when
 * another changed it since. Equal copies stamp equal, so a change undone is no conflict; key order
 * is not told apart, a default spelled out by hand is told apart from its absence.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../app/audit/canonical-json';

/** The stamp of `stored` (undefined: nothing stored, the defaults). */
export function storedRevision(stored: unknown): string {
  const text = canonicalJson(stored ?? null) ?? 'null';
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
