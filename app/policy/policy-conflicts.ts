/**
 * How the policy editor names a field changed both in the draft and in the stored copy since the
 * draft began (policy-draft.ts `conflicts`): the words of the control that edits it and what the
 * stored copy holds, e.g. "Network (stored: Allowlist)". Folder paths, commands and arguments come
 * from the user or a client's config and are shown escaped; a variable's value is never shown.
 */
import { showUntrusted } from '../text/untrusted-text';
import { limitLabels } from './limit-labels';
import type { PolicyDraft } from './policy-draft';
import type { LimitName } from './policy-schema';

const NETWORK_MODES: Record<string, string> = {
  none: 'No network',
  allowlist: 'Allowlist',
  ask: 'Ask',
};
const CREDENTIAL_MODES: Record<string, string> = {
  redact: 'Redact',
  block: 'Block',
  ask: 'Ask',
  off: 'Off',
};

/** How a field reads: its label, and its stored value in words. */
interface FieldWords {
  label: (subject: string) => string;
  value: (stored: unknown) => string;
}

/** The words for a choice the stored copy holds (an enum), or 'not set'. */
const named = (words: Record<string, string>, v: unknown) =>
  typeof v === 'string' && Object.hasOwn(words, v) ? words[v]! : 'not set';
const seconds = (v: unknown) => (typeof v === 'number' ? `${v} s` : 'not set');
const shown = (v: unknown) => (typeof v === 'string' ? showUntrusted(v) : 'not set');

/** Fields by the path the merge names them with; `*` stands for one key (a path, a name). */
const FIELDS: Array<[pattern: string, words: FieldWords]> = [
  [
    'policy.isolation',
    {
      label: () => 'Sandbox isolation',
      value: (v) => (v === 'off' ? 'off' : 'on'),
    },
  ],
  ['policy.filesystem.roots.*', { label: (p) => `Folder ${shown(p)}`, value: (v) => access(v) }],
  [
    'policy.filesystem.roots.*.access',
    { label: (p) => `Folder ${shown(p)}`, value: (v) => access({ access: v }) },
  ],
  [
    'policy.network.mode',
    {
      label: () => 'Network',
      value: (v) => named(NETWORK_MODES, v),
    },
  ],
  ['policy.network.askTimeoutSeconds', { label: () => 'Wait for a decision', value: seconds }],
  [
    'policy.env.set.*',
    {
      label: (name) => `Variable ${shown(name)}`,
      value: (v) => envValue(v),
    },
  ],
  // Changed inside the variable on both sides: what kind of value the stored copy holds.
  [
    'policy.env.set.*.kind',
    { label: (n) => `Variable ${shown(n)}`, value: (k) => envValue({ kind: k }) },
  ],
  ['policy.env.set.*.value', { label: (n) => `Variable ${shown(n)}`, value: () => 'a value' }],
  [
    'policy.env.set.*.ref',
    { label: (n) => `Variable ${shown(n)}`, value: () => 'a stored secret' },
  ],
  ['policy.idleTimeoutSeconds', { label: () => 'Stop after idle', value: seconds }],
  [
    'policy.tools.credentials',
    {
      label: () => 'Credential scanning',
      value: (v) => named(CREDENTIAL_MODES, v ?? 'redact'),
    },
  ],
  ['policy.tools.approvalTimeoutSeconds', { label: () => 'Wait for an approval', value: seconds }],
  ['launch.command', { label: () => 'Program', value: shown }],
  [
    'launch.args',
    {
      label: () => 'Arguments',
      value: (v) => (Array.isArray(v) ? argsText(v) : 'not set'),
    },
  ],
  ['launch.cwd', { label: () => 'Working folder', value: shown }],
  ...(Object.keys(limitLabels) as LimitName[]).map((name): [string, FieldWords] => {
    // "Memory (MB)": the noun, and the unit the number is in.
    const [, noun, unit] = /^(.*?)(?: \((.*)\))?$/.exec(limitLabels[name])!;
    return [
      `policy.limits.${name}`,
      {
        label: () => `${noun} limit`,
        value: (v) => (typeof v === 'number' ? `${v}${unit ? ` ${unit}` : ''}` : 'none'),
      },
    ];
  }),
];

function access(entry: unknown): string {
  const a = (entry as { access?: unknown } | undefined)?.access;
  return a === 'write' ? 'writable' : a === 'read' ? 'read-only' : 'not granted';
}

function envValue(v: unknown): string {
  const kind = (v as { kind?: unknown } | undefined)?.kind;
  return kind === 'secret' ? 'a stored secret' : kind === 'plain' ? 'a value' : 'not set';
}

function argsText(args: unknown[]): string {
  if (args.length === 0) return 'none';
  const text = showUntrusted(args.map(String).join(' '));
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * The keys of `field` below its root, walked against the stored value and the draft's (a key the
 * stored copy lost is still in the draft): a key may hold dots (a folder path), so at each level
 * the longest key either side has that the rest starts with is taken; a list of entries with a
 * `path` is walked by path, as the merge does. The value is the stored copy's.
 */
function walk(stored: unknown, mine: unknown, rest: string): { keys: string[]; value: unknown } {
  const keys: string[] = [];
  let [value, other] = [stored, mine];
  while (rest !== '') {
    const [here, there] = [keyed(value), keyed(other)];
    const key = [...Object.keys(here ?? {}), ...Object.keys(there ?? {})]
      .filter((k) => rest === k || rest.startsWith(`${k}.`))
      .sort((a, b) => b.length - a.length)[0];
    // Neither side holds it: the rest is read one key at a time.
    const next = key ?? rest.split('.')[0]!;
    keys.push(next);
    [value, other] = [here?.[next], there?.[next]];
    rest = rest.slice(next.length + 1);
  }
  return { keys, value };
}

function keyed(value: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(value)) {
    const entries = value.flatMap((e) =>
      typeof e === 'object' && e !== null && typeof (e as { path?: unknown }).path === 'string'
        ? [[(e as { path: string }).path, e] as const]
        : [],
    );
    return entries.length === value.length ? Object.fromEntries(entries) : undefined;
  }
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The conflicting `field` (e.g. `policy.network.mode`) as the editor's notice names it. */
export function conflictText(draft: PolicyDraft, field: string): string {
  const [root, ...restParts] = field.split('.');
  const [stored, mine] =
    root === 'launch'
      ? [draft.original.launch, draft.launch]
      : [draft.original.policy, draft.policy];
  const { keys, value } = walk(stored, mine, restParts.join('.'));
  const path = [root, ...keys];
  for (const [pattern, words] of FIELDS) {
    const parts = pattern.split('.');
    if (parts.length !== path.length) continue;
    if (!parts.every((p, i) => p === '*' || p === path[i])) continue;
    const subject = keys[parts.indexOf('*') - 1] ?? '';
    return `${words.label(subject)} (stored: ${words.value(value)})`;
  }
  return `${showUntrusted(keys.join(' › '))} (stored: ${generic(value)})`;
}

function generic(value: unknown): string {
  if (value === undefined) return 'not set';
  if (typeof value === 'string') return showUntrusted(value);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return 'set';
}
