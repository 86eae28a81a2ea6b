/**
 * `warden audit prune`: applies retention now, with the limits in config.json (`audit.retention`)
 * unless flags give others for this run. It writes to the log like the core does (one chain, its
 * own transactions), so it is safe beside a running core.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AuditRetention } from '../../app/audit/audit-settings';
import { type CliIo, UsageError } from '../cli/cli-io';
import { ConfigStore } from '../config/config-store';
import { checkRetention, retentionToApply } from '../config/guard-layers';
import { openAuditStore } from './audit-store';

function limit(flag: string, value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (value === 'none') return null;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1))
    throw new UsageError(`${flag}: expected a whole number of 1 or more, or none; got '${value}'`);
  return n;
}

/** Runs `warden audit prune [--max-age-days N|none] [--max-size-mb N|none]`. */
export async function prune(args: string[], wardenHome: string, io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'max-age-days': { type: 'string' }, 'max-size-mb': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const path = join(wardenHome, 'audit.db');
  if (!existsSync(path)) {
    io.stdout(`nothing to prune: no audit log at ${path} yet\n`);
    return 0;
  }
  const configured = (await ConfigStore.open({ wardenHome })).auditSettings().retention;
  const asked: AuditRetention = {
    maxAgeDays: limit('--max-age-days', values['max-age-days'], configured.maxAgeDays),
    maxSizeMb: limit('--max-size-mb', values['max-size-mb'], configured.maxSizeMb),
  };
  // Flags below the managed minimum are refused; a hand-edited config is raised to it.
  const flagged = values['max-age-days'] !== undefined || values['max-size-mb'] !== undefined;
  const refused = flagged ? await checkRetention(asked) : undefined;
  if (refused) throw new UsageError(`${refused.message}; ${refused.remedy}`);
  const retention = await retentionToApply(asked);
  if (!retention) {
    const why = await checkRetention(asked);
    io.stderr(
      `warden audit: nothing pruned: ${why?.message ?? 'the managed policy cannot be read'}\n`,
    );
    return 1;
  }
  const opened = openAuditStore({ path, headFile: join(wardenHome, 'audit-head.json') });
  if (!opened.ok) {
    io.stderr(`warden audit: ${opened.error.message} (${opened.error.remedy})\n`);
    return 1;
  }
  const store = opened.value;
  try {
    const r = store.prune(retention);
    const limits = `max age ${retention.maxAgeDays ?? 'none'} days, max size ${retention.maxSizeMb ?? 'none'} MB`;
    io.stdout(
      r.prunedRows > 0
        ? `pruned ${r.prunedRows} rows through row ${r.throughId} (${r.reason}; ${limits})\n`
        : `nothing to prune (${limits})\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
