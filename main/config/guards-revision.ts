/**
 * The revision of the stored global part: a stamp of its content, so that an editor can say which
 * part it started from and be refused when another changed it since. Equal parts stamp equal, so
 * a change undone is no conflict; key order and defaults spelled out by hand are not told apart
 * from their absence only where the JSON differs.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../app/audit/canonical-json';
import type { Guards } from '../../app/policy/guards';

/** The stamp of `stored` (undefined: nothing stored, the defaults). */
export function guardsRevision(stored: Readonly<Guards> | undefined): string {
  const text = canonicalJson(stored ?? null) ?? 'null';
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
