/**
 * `warden policy show|edit`: the global part of the config, the guards every server inherits
 * (hidden paths, network deny patterns, whether isolation off is allowed), and the managed layer
 * above it, read-only here.
 */
import { terminalJson } from '../../app/text/terminal-json';
import { parseArgs } from 'node:util';
import type { PolicyView } from '../../app/contract/policy';
import type { Guards } from '../../app/policy/guards';
import type { ContractCaller } from '../core/control-channel';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, EXIT_USAGE, UsageError, reportUsage } from './cli-io';
import { hiddenPathFlag } from './policy-flags';

const list = (items: readonly string[] | undefined) =>
  items && items.length > 0 ? items.map((i) => showUntrusted(i)).join(', ') : '(none)';

function describeView(view: PolicyView): string {
  const a = view.applied;
  const m = view.managed;
  const lines = [
    `hidden paths:   ${list(a.hiddenPaths)}${view.stored?.hiddenPaths ? '' : ' (defaults)'}`,
    `network deny:   ${list(a.network?.deny)}`,
    `limits:         ${
      Object.entries(a.limits ?? {})
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '(defaults)'
    }`,
    `isolation off:  ${a.isolation?.allowOff === false ? 'not allowed' : 'allowed'}`,
    `managed policy: ${showUntrusted(m.path)}${m.error ? '' : m.policy ? '' : ' (none)'}`,
  ];
  if (m.error) lines.push(`  UNUSABLE: ${showUntrusted(m.error)}; launches are refused`);
  else if (m.policy) {
    const p = m.policy;
    if (p.hiddenPaths) lines.push(`  hidden paths:  ${list(p.hiddenPaths)}`);
    if (p.network?.deny) lines.push(`  network deny:  ${list(p.network.deny)}`);
    if (p.limits)
      lines.push(
        `  max limits:    ${Object.entries(p.limits)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    if (p.network?.allow) lines.push(`  allowed only:  ${list(p.network.allow)}`);
    if (p.isolation?.allowOff === false) lines.push('  isolation off: forbidden');
    if (p.isolation?.allowBestEffort === false) lines.push('  best-effort:   forbidden');
    if (p.workspace?.allowExceptions === false)
      lines.push('  workspace:     no exceptions (its files stay read-only)');
    const keep = [
      p.audit?.minRetentionDays !== undefined ? `${p.audit.minRetentionDays} days` : '',
      p.audit?.minRetentionMb !== undefined ? `${p.audit.minRetentionMb} MB` : '',
    ].filter(Boolean);
    if (keep.length > 0) lines.push(`  audit keeps:   at least ${keep.join(' and ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Applies `policy edit` flags to the applied global part; throws UsageError. */
export function applyGuardEdit(args: string[], current: Guards): Guards {
  const parsed = parseArgs({
    args,
    options: {
      hide: { type: 'string', multiple: true },
      unhide: { type: 'string', multiple: true },
      deny: { type: 'string', multiple: true },
      undeny: { type: 'string', multiple: true },
      'allow-off': { type: 'string' },
    },
    strict: true,
  });
  const v = parsed.values;
  const hidden = [...(current.hiddenPaths ?? [])];
  for (const p of (v.hide ?? []).map((x) => hiddenPathFlag('--hide', x)))
    if (!hidden.includes(p)) hidden.push(p);
  const unhide = (v.unhide ?? []).map((x) => hiddenPathFlag('--unhide', x));
  for (const p of unhide)
    if (!hidden.includes(p)) throw new UsageError(`--unhide: "${p}" is not a hidden path`);
  const deny = [...(current.network?.deny ?? []), ...(v.deny ?? [])].filter(
    (d, i, all) => all.indexOf(d) === i && !(v.undeny ?? []).includes(d),
  );
  const allowOff = v['allow-off'];
  if (allowOff !== undefined && allowOff !== 'yes' && allowOff !== 'no')
    throw new UsageError(`--allow-off: expected yes or no, got "${allowOff}"`);
  if (Object.values(v).every((x) => x === undefined))
    throw new UsageError('policy edit: nothing to change; give a flag');
  return {
    ...current,
    hiddenPaths: hidden.filter((p) => !unhide.includes(p)),
    network: { deny },
    isolation: {
      allowOff: allowOff === undefined ? current.isolation?.allowOff !== false : allowOff === 'yes',
    },
  };
}

/** Runs `warden policy …` against `core`. */
export async function runPolicyCommand(
  args: string[],
  io: CliIo,
  core: ContractCaller,
): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'show') {
      const { values } = parseArgs({
        args: rest,
        options: { json: { type: 'boolean' } },
        strict: true,
      });
      const reply = await core.handle('policy.get', {});
      if (!reply.ok) return fail(io, reply.error.message);
      const view = reply.value as PolicyView;
      io.stdout(values.json ? `${terminalJson(view)}\n` : describeView(view));
      return 0;
    }
    if (sub === 'edit') {
      const before = await core.handle('policy.get', {});
      if (!before.ok) return fail(io, before.error.message);
      const next = applyGuardEdit(rest, (before.value as PolicyView).applied);
      const reply = await core.handle('policy.update', next);
      if (!reply.ok) {
        io.stderr(`warden: ${reply.error.message}\n`);
        return EXIT_USAGE;
      }
      io.stdout(`Changed the global policy.\n${describeView(reply.value as PolicyView)}`);
      return 0;
    }
    throw new UsageError(`policy: unknown subcommand "${sub ?? ''}" (see warden policy --help)`);
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, error);
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      return reportUsage(io, new UsageError((error as Error).message.split('\n')[0]!));
    throw error;
  }
}

function fail(io: CliIo, message: string): number {
  io.stderr(`warden: ${message}\n`);
  return 1;
}
