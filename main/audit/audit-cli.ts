/**
 * `warden audit list|export|verify`: read the audit log from the shell. The log is opened
 * read-only, so these commands run safely beside a live core that is writing to it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { auditKinds, isAuditKind } from '../../app/audit/audit-event';
import { AUDIT_PAGE_MAX, type AuditQuery, type AuditRow } from '../../app/audit/audit-row';
import { auditEventText } from '../../app/audit/audit-text';
import { terminalJson } from '../../app/text/terminal-json';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, EXIT_USAGE, UsageError } from '../cli/cli-io';
import { readHead } from './audit-head';
import { prune } from './audit-prune-command';
import { type AuditStore, openAuditStore } from './audit-store';

export const AUDIT_HELP = `Usage:
  warden audit list [filters] [--limit N] [--cursor ID] [--json]
  warden audit export FILE [filters]      write matching rows as JSON Lines, oldest first
  warden audit verify                     recompute the hash chain and compare its end with the
                                          recorded head; exit 1 if it is broken or cut short
  warden audit prune [--max-age-days N] [--max-size-mb N]
                                          apply retention now (default: audit.retention in
                                          config.json); the log keeps an anchor so verify works

Filters:
  --server NAME      --instance ID       --outcome ok|refused|error|info
  --kind KIND        one of: ${auditKinds.join(', ')}
  --since TIME       --until TIME        ISO 8601 time, or a duration ago: 30s, 15m, 2h, 7d
  --text WORDS       words in the summary (whole words; end one with * for a prefix)
`;

const FILTER_OPTIONS = {
  server: { type: 'string' },
  instance: { type: 'string' },
  kind: { type: 'string' },
  outcome: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  text: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const LIST_OPTIONS = {
  ...FILTER_OPTIONS,
  limit: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Runs `warden audit …` against `$WARDEN_HOME/audit.db`; returns the exit status. */
export async function runAuditCommand(
  args: string[],
  io: CliIo,
  opts: { wardenHome: string },
): Promise<number> {
  const [sub, ...rest] = args;
  const dbPath = join(opts.wardenHome, 'audit.db');
  try {
    if (sub === undefined) {
      io.stderr(AUDIT_HELP);
      return EXIT_USAGE;
    }
    if (sub === 'help' || sub === '--help' || sub === '-h') {
      io.stdout(AUDIT_HELP);
      return 0;
    }
    if (sub === 'prune') return await prune(rest, opts.wardenHome, io);
    if (sub !== 'list' && sub !== 'export' && sub !== 'verify') {
      throw new UsageError(`unknown audit command '${sub}' (list, export, verify or prune)`);
    }
    const options =
      sub === 'list'
        ? LIST_OPTIONS
        : sub === 'export'
          ? FILTER_OPTIONS
          : { help: FILTER_OPTIONS.help };
    const { values, positionals } = parseArgs({
      args: rest,
      options,
      allowPositionals: true,
      strict: true,
    });
    const flags = values as Record<string, string | boolean | undefined>;
    if (flags.help) {
      io.stdout(AUDIT_HELP);
      return 0;
    }
    const wanted = sub === 'export' ? 1 : 0;
    if (positionals.length !== wanted) {
      throw new UsageError(
        wanted ? 'audit export needs one FILE' : `unexpected argument '${positionals[0]}'`,
      );
    }
    const query = toQuery(flags);
    const store = openForReading(dbPath, join(opts.wardenHome, 'audit-head.json'), io);
    if (store === undefined) return 1;
    try {
      if (sub === 'list') return await list(store, query, flags.json === true, dbPath, io);
      if (sub === 'export') {
        const file = positionals[0]!;
        const { rows } = store ? await store.exportJsonl(query, file) : await emptyFile(file);
        io.stdout(`exported ${rows} rows to ${showUntrusted(file)}\n`);
        return 0;
      }
      return verify(store, dbPath, join(opts.wardenHome, 'audit-head.json'), io);
    } finally {
      await store?.close();
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || code?.startsWith('ERR_PARSE_ARGS')) {
      // Node's unknown-option message goes on about positionals; the flag is what matters.
      const message = (error as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, '');
      io.stderr(`warden audit: ${showUntrusted(message)}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** The store, `null` when there is no log yet, `undefined` when it cannot be opened (reported). */
function openForReading(path: string, headFile: string, io: CliIo): AuditStore | null | undefined {
  const opened = openAuditStore({ path, readonly: true, headFile });
  if (opened.ok) return opened.value;
  if (opened.error.kind === 'missing') return null;
  io.stderr(`warden audit: ${showUntrusted(`${opened.error.message} (${opened.error.remedy})`)}\n`);
  return undefined;
}

async function emptyFile(file: string): Promise<{ rows: number }> {
  await writeFile(file, '', { mode: 0o600 });
  return { rows: 0 };
}

async function list(
  store: AuditStore | null,
  query: AuditQuery,
  json: boolean,
  path: string,
  io: CliIo,
): Promise<number> {
  const page = store ? await store.query(query) : { rows: [] as AuditRow[] };
  if (json) {
    io.stdout(`${terminalJson(page)}\n`);
    return 0;
  }
  if (!store) io.stderr(`No audit log at ${path} yet.\n`);
  for (const row of page.rows) {
    // Server, network and client text in an event is shown escaped; the stored row stays exact.
    io.stdout(`${row.id}\t${row.ts}\t${showUntrusted(auditEventText(row.event))}\n`);
  }
  if (page.nextCursor !== undefined) {
    io.stderr(`more: add --cursor ${page.nextCursor} for the next page\n`);
  }
  return 0;
}

function verify(store: AuditStore | null, path: string, headFile: string, io: CliIo): number {
  if (!store) {
    const head = readHead(headFile);
    if (head) {
      io.stdout(
        `BROKEN: there is no audit log at ${path}, but ${headFile} records its head at row ${head.id} (${head.ts}): the whole log is missing\n`,
      );
      return 1;
    }
    io.stdout(`ok: 0 rows verified (no audit log at ${path} yet)\n`);
    return 0;
  }
  const result = store.verify();
  if (result.ok) {
    io.stdout(`ok: ${result.rows} rows verified (head ${result.headHash})\n`);
    if (result.prunedThrough) {
      io.stdout(
        `rows 1-${result.prunedThrough} were removed by retention; the chain verifies from its anchor\n`,
      );
    }
    if (result.headChecked) io.stdout(`the end matches the head recorded in ${headFile}\n`);
    else
      io.stderr(`note: no head recorded in ${headFile}, so rows cut from the end would not show\n`);
    return 0;
  }
  io.stdout(`BROKEN at row ${result.firstBrokenId}: ${result.reason}\n`);
  return 1;
}

function toQuery(flags: Record<string, string | boolean | undefined>): AuditQuery {
  const str = (name: string) => (typeof flags[name] === 'string' ? flags[name] : undefined);
  const q: AuditQuery = {};
  if (str('server')) q.server = str('server');
  if (str('instance')) q.instance = str('instance');
  const kind = str('kind');
  if (kind !== undefined) {
    if (!isAuditKind(kind))
      throw new UsageError(`--kind: unknown kind '${kind}' (one of: ${auditKinds.join(', ')})`);
    q.kind = kind;
  }
  const outcome = str('outcome');
  if (outcome !== undefined) {
    if (outcome !== 'ok' && outcome !== 'refused' && outcome !== 'error' && outcome !== 'info') {
      throw new UsageError(`--outcome: expected ok, refused, error or info, got '${outcome}'`);
    }
    q.outcome = outcome;
  }
  if (str('since') !== undefined) q.since = parseTime('--since', str('since')!);
  if (str('until') !== undefined) q.until = parseTime('--until', str('until')!);
  if (str('text')) q.text = str('text');
  if (str('limit') !== undefined) q.limit = parseCount('--limit', str('limit')!, AUDIT_PAGE_MAX);
  if (str('cursor') !== undefined)
    q.cursor = parseCount('--cursor', str('cursor')!, Number.MAX_SAFE_INTEGER);
  return q;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An ISO time, or a duration ago (`15m`), as an ISO timestamp. */
export function parseTime(flag: string, value: string, now = Date.now()): string {
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2]!]!).toISOString();
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `${flag}: expected an ISO time or a duration like 15m, 2h, 7d; got '${value}'`,
    );
  }
  return new Date(ms).toISOString();
}

function parseCount(flag: string, value: string, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= max))
    throw new UsageError(`${flag}: expected a whole number from 1 to ${max}, got '${value}'`);
  return n;
}
