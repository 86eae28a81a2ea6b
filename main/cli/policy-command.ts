/**
 * `warden policy show|edit`: the global part of the config, the guards every server inherits
 * (hidden paths, network deny and allow patterns, the switches of isolation off, best-effort limits
 * and workspace exceptions), and the managed layer above it, read-only here.
 */
import { terminalJson } from '../../app/text/terminal-json';
import { parseArgs } from 'node:util';
import type { PolicyView } from '../../app/contract/policy';
import type { Guards } from '../../app/policy/guards';
import type { ContractCaller } from '../core/control-channel';
import type { Reply } from '../../app/contract/reply';
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
    ...(a.network?.allow ? [`allowed only:   ${list(a.network.allow)}`] : []),
    `isolation off:  ${a.isolation?.allowOff === false ? 'not allowed' : 'allowed'}`,
    `best-effort:    ${a.isolation?.allowBestEffort === false ? 'not allowed' : 'allowed'}`,
    `workspace:      ${
      a.workspace?.allowExceptions === false
        ? 'no exceptions (its files stay read-only)'
        : 'exceptions allowed'
    }`,
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

/** A `yes|no` flag's value, undefined when it was not given; throws UsageError. */
function yesNo(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'yes' && value !== 'no')
    throw new UsageError(`${flag}: expected yes or no, got "${value}"`);
  return value === 'yes';
}

/**
 * Applies `policy edit` flags to the stored global part, changing only what a flag names: the
 * rest (a network allow list, audit minimums, a switch set by hand) is kept as stored, and lists
 * left at their defaults stay defaults. Throws UsageError.
 */
export function applyGuardEdit(
  args: string[],
  view: Pick<PolicyView, 'stored' | 'applied'>,
): Guards {
  const parsed = parseArgs({
    args,
    options: {
      hide: { type: 'string', multiple: true },
      unhide: { type: 'string', multiple: true },
      deny: { type: 'string', multiple: true },
      undeny: { type: 'string', multiple: true },
      'allow-only': { type: 'string', multiple: true },
      unallow: { type: 'string', multiple: true },
      'allow-any': { type: 'boolean' },
      'allow-off': { type: 'string' },
      'allow-best-effort': { type: 'string' },
      'workspace-exceptions': { type: 'string' },
    },
    strict: true,
  });
  const v = parsed.values;
  const allowOff = yesNo('--allow-off', v['allow-off']);
  const allowBestEffort = yesNo('--allow-best-effort', v['allow-best-effort']);
  const allowExceptions = yesNo('--workspace-exceptions', v['workspace-exceptions']);
  if (Object.values(v).every((x) => x === undefined))
    throw new UsageError('policy edit: nothing to change; give a flag');
  const next: Guards = structuredClone(view.stored ?? {});
  if (v.hide || v.unhide) {
    const hidden = [...(view.applied.hiddenPaths ?? [])];
    for (const p of (v.hide ?? []).map((x) => hiddenPathFlag('--hide', x)))
      if (!hidden.includes(p)) hidden.push(p);
    const unhide = (v.unhide ?? []).map((x) => hiddenPathFlag('--unhide', x));
    for (const p of unhide)
      if (!hidden.includes(p)) throw new UsageError(`--unhide: "${p}" is not a hidden path`);
    next.hiddenPaths = hidden.filter((p) => !unhide.includes(p));
  }
  if (v.deny || v.undeny) {
    const deny = [...(view.applied.network?.deny ?? []), ...(v.deny ?? [])].filter(
      (d, i, all) => all.indexOf(d) === i && !(v.undeny ?? []).includes(d),
    );
    next.network = { ...next.network, deny };
  }
  if (v['allow-any'] && (v['allow-only'] || v.unallow))
    throw new UsageError(
      '--allow-any drops the allow list; give it without --allow-only or --unallow',
    );
  if (v['allow-any'] && next.network) delete next.network.allow;
  if (v['allow-only'] || v.unallow) {
    const allow = [...(next.network?.allow ?? []), ...(v['allow-only'] ?? [])];
    for (const a of v.unallow ?? [])
      if (!allow.includes(a)) throw new UsageError(`--unallow: "${a}" is not in the allow list`);
    const kept = allow.filter((a, i) => allow.indexOf(a) === i && !(v.unallow ?? []).includes(a));
    next.network = { ...next.network, allow: kept };
  }
  if (allowOff !== undefined) next.isolation = { ...next.isolation, allowOff };
  if (allowBestEffort !== undefined) next.isolation = { ...next.isolation, allowBestEffort };
  if (allowExceptions !== undefined) next.workspace = { ...next.workspace, allowExceptions };
  return next;
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
      const { read, reply } = await editOnce(rest, core);
      if (!read.ok) return fail(io, read.error.message);
      if (!reply.ok) {
        io.stderr(`warden: ${showUntrusted(reply.error.message)}\n`);
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

/** How many times an edit is made again on a part another change replaced meanwhile. */
const EDIT_ATTEMPTS = 3;

/**
 * Reads the global part, changes what `args` name and writes it over exactly the part read: when
 * another change came between (the panel, config.json), the flags are applied to that one instead.
 */
async function editOnce(
  args: string[],
  core: ContractCaller,
): Promise<{ read: Reply; reply: Reply }> {
  for (let attempt = 1; ; attempt++) {
    const read = await core.handle('policy.get', {});
    if (!read.ok) return { read, reply: read };
    const view = read.value as PolicyView;
    const guards = applyGuardEdit(args, view);
    const reply = await core.handle('policy.update', { guards, expectedRevision: view.revision });
    if (reply.ok || reply.error.kind !== 'conflict' || attempt === EDIT_ATTEMPTS)
      return { read, reply };
  }
}

function fail(io: CliIo, message: string): number {
  io.stderr(`warden: ${showUntrusted(message)}\n`);
  return 1;
}
