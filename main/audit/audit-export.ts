/**
 * Export as JSON Lines: one stored row per line (hash fields included), oldest first, so that the
 * file can be re-verified on its own. Rows are read in keyset chunks and written with back
 * pressure; the connection is never held by a long-running statement, so writers go on meanwhile.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { AuditDb } from './audit-db';
import { type AuditFilter, decodeRow, ROW_COLUMNS, type RawRow, selectRows } from './audit-query';

const CHUNK = 1000;

/**
 * Writes every row matching `filter` to `filePath` (replaced; a new file is the user's alone, as
 * the log is: it holds tool arguments); resolves to the row count.
 */
export async function exportJsonl(
  adb: AuditDb,
  filter: AuditFilter,
  filePath: string,
): Promise<{ rows: number }> {
  const out = createWriteStream(filePath, { encoding: 'utf8', mode: 0o600 });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let after = 0;
  let rows = 0;
  try {
    for (;;) {
      const sel = selectRows(adb, filter, { after });
      const chunk = adb.db
        .prepare(`SELECT ${ROW_COLUMNS} ${sel.sql} ORDER BY ${sel.id} ASC LIMIT ?`)
        .raw()
        .all(...sel.params, CHUNK) as RawRow[];
      if (chunk.length === 0) break;
      const text = chunk.map((r) => JSON.stringify(decodeRow(r)) + '\n').join('');
      rows += chunk.length;
      after = chunk[chunk.length - 1]![0];
      if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
      if (chunk.length < CHUNK) break;
    }
  } finally {
    out.end();
  }
  await Promise.race([once(out, 'finish'), failed]);
  return { rows };
}
