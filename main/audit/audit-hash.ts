/**
 * The hash chain. Each row's hash is sha256(prevHash + canonical JSON of the row's fields), where
 * the fields are {event, id, instance, kind, outcome, server, text, ts} with keys sorted and
 * `event` the stored canonical body. The id is hashed so that a row cannot be moved; the columns
 * are hashed so that a query column cannot be edited apart from the body.
 */
import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';

export { GENESIS_HASH } from '../../app/audit/genesis-hash';

/** The hashed fields of one row; `body` is the event's canonical JSON exactly as stored. */
export interface HashedRow {
  id: number;
  ts: string;
  kind: string;
  server: string | null;
  instance: string | null;
  outcome: string;
  text: string;
  body: string;
}

/** The canonical JSON text of a row's hashed fields (keys in sorted order, no whitespace). */
export function canonicalRowText(row: HashedRow): string {
  return (
    `{"event":${row.body},"id":${row.id},"instance":${JSON.stringify(row.instance)}` +
    `,"kind":${JSON.stringify(row.kind)},"outcome":${JSON.stringify(row.outcome)}` +
    `,"server":${JSON.stringify(row.server)},"text":${JSON.stringify(row.text)}` +
    `,"ts":${JSON.stringify(row.ts)}}`
  );
}

/** Node's one-shot digest (Node ≥ 20.12 and Electron's): no Hash object per row. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string })
  .hash;

/** sha256(prevHash + canonical row text), lower-case hex. */
export function rowHash(prevHash: string, row: HashedRow): string {
  const text = prevHash + canonicalRowText(row);
  if (oneShot) return oneShot('sha256', text, 'hex');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
