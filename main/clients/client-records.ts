/**
 * `$WARDEN_HOME/clients.json`: which client entries became which Warden servers, and each
 * connected client file with its backup and the original entries Warden replaced, so that
 * disconnect can give the client back exactly what it had.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { clientIdSchema } from '../../app/clients/client-formats';
import { writeFileAtomic } from '../config/atomic-write';
import { withLockFile } from '../core/core-lock';

const keyPathSchema = z.array(z.union([z.string(), z.number()]));

const importRecordSchema = z.object({
  client: clientIdSchema,
  file: z.string(),
  /** The entry id (its key path as JSON). */
  id: z.string(),
  server: z.string(),
  at: z.string(),
});
export type ImportRecord = z.infer<typeof importRecordSchema>;

const connectionRecordSchema = z.object({
  client: clientIdSchema,
  file: z.string(),
  transport: z.enum(['stdio', 'http']),
  connectedAt: z.string(),
  backup: z.string(),
  /** SHA-256 of the file before and right after Warden's edit. */
  originalSha256: z.string(),
  connectedSha256: z.string(),
  /**
   * The file's permission bits before Warden's edit, given back on disconnect unless its mode
   * changed since: a token made it 0600. Absent in records written before it was kept.
   */
  originalMode: z.number().int().min(0).max(0o7777).optional(),
  entries: z.array(
    z.object({
      keyPath: keyPathSchema,
      entryName: z.string(),
      server: z.string(),
      /** The client's own entry, as parsed, re-applied on disconnect if the file moved on. */
      original: z.unknown(),
      /** The entry Warden wrote. */
      written: z.unknown(),
    }),
  ),
});
export type ConnectionRecord = z.infer<typeof connectionRecordSchema>;

const recordsSchema = z.object({
  version: z.literal(1),
  imports: z.array(importRecordSchema),
  connections: z.array(connectionRecordSchema),
});
export type ClientsRecords = z.infer<typeof recordsSchema>;

/** The record file, read fresh and written atomically for every change. */
export class ClientRecords {
  readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(wardenHome: string) {
    this.path = join(wardenHome, 'clients.json');
  }

  /** The current records; an empty set when the file does not exist yet. */
  async read(): Promise<ClientsRecords> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { version: 1, imports: [], connections: [] };
      throw error;
    }
    const parsed = recordsSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(
        `${this.path} is not a valid clients record: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    return parsed.data;
  }

  /**
   * Applies `change` to the records and writes them, one change at a time: in this process, and
   * under the file's lock across this user's Warden processes (the app and the CLI).
   */
  update(change: (records: ClientsRecords) => void): Promise<ClientsRecords> {
    const next = this.queue.then(() =>
      withLockFile(this.path, 'a change to the clients record', async () => {
        const records = await this.read();
        change(records);
        await writeFileAtomic(this.path, `${JSON.stringify(records, null, 2)}\n`);
        return records;
      }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }
}
