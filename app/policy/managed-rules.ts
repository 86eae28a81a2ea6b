/**
 * The rules the managed layer (and, for what the user may change, the global part) sets on every
 * server, one check each: isolation off, best-effort limits, a denied or not-allowed destination,
 * a limit above a maximum, un-hiding a managed path, a workspace file exception where none is
 * allowed, and audit retention below the minimum. The
 * core refuses with these answers, and the control panel shows a control locked with the same
 * rule and reason before anyone tries.
 */
import type { AuditRetention } from '../audit/audit-settings';
import type { Guards } from './guards';
import { type DestinationPattern, parsePattern } from './network-patterns';
import type { LimitName } from './policy-schema';

/** The guard layers as loaded: the stored global part and the managed file (if any). */
export interface GuardLayers {
  global: Guards | undefined;
  managed: Guards | undefined;
}

/** A change or launch a guard layer forbids, naming its rule. */
export interface ManagedRefusal {
  kind: 'managed-policy';
  /** The rule, e.g. `managed isolation.allowOff=false` or `managed network.deny "*.blocked.test"`. */
  rule: string;
  message: string;
  remedy: string;
}

type LayerName = 'managed' | 'global';

/** A refusal as one line: the reason, then the rule in brackets. */
export function refusalText(r: ManagedRefusal): string {
  return `${r.message} (${r.rule})`;
}

const ADMIN_ONLY = 'only the machine administrator can change the managed policy';

function refusal(layer: LayerName, rule: string, message: string, remedy: string): ManagedRefusal {
  const who = layer === 'managed' ? 'the managed policy' : 'the global policy';
  return { kind: 'managed-policy', rule: `${layer} ${rule}`, message: `${who} ${message}`, remedy };
}

/** The layers that set rules, the managed one first (its refusal is the one named). */
function ruleLayers(layers: GuardLayers): [LayerName, Guards][] {
  const out: [LayerName, Guards][] = [];
  if (layers.managed) out.push(['managed', layers.managed]);
  if (layers.global) out.push(['global', layers.global]);
  return out;
}

const coversName = (domain: string, host: string) => host === domain || host.endsWith(`.${domain}`);

/** True when some destination matches both patterns. */
export function patternsOverlap(a: DestinationPattern, b: DestinationPattern): boolean {
  if (a.port !== undefined && b.port !== undefined && a.port !== b.port) return false;
  if (a.kind === 'ip' || b.kind === 'ip') return a.kind === b.kind && a.text === b.text;
  if (a.kind === 'host' && b.kind === 'host') return a.host === b.host;
  if (a.kind === 'host' && b.kind === 'subdomains') return a.host.endsWith(`.${b.domain}`);
  if (a.kind === 'subdomains' && b.kind === 'host') return b.host.endsWith(`.${a.domain}`);
  if (a.kind === 'subdomains' && b.kind === 'subdomains')
    return coversName(a.domain, b.domain) || coversName(b.domain, a.domain);
  return false;
}

/** True when every destination `inner` matches is matched by `outer` too. */
export function patternWithin(inner: DestinationPattern, outer: DestinationPattern): boolean {
  if (outer.port !== undefined && inner.port !== outer.port) return false;
  if (inner.kind === 'ip' || outer.kind === 'ip')
    return (
      inner.kind === outer.kind &&
      inner.text.replace(/:\d+$/, '') === outer.text.replace(/:\d+$/, '')
    );
  if (outer.kind === 'host') return inner.kind === 'host' && inner.host === outer.host;
  return inner.kind === 'host'
    ? inner.host.endsWith(`.${outer.domain}`)
    : coversName(outer.domain, inner.domain);
}

const parsed = (text: string) => {
  const r = parsePattern(text);
  return r.ok ? r.value : undefined;
};

/** The refusal of the first layer (the managed one first) whose guards `forbid`, or undefined. */
function switchRefusal(
  layers: GuardLayers,
  forbid: (g: Guards) => boolean,
  rule: string,
  message: string,
  remedy: (layer: LayerName) => string,
): ManagedRefusal | undefined {
  const found = ruleLayers(layers).find(([, g]) => forbid(g));
  return found && refusal(found[0], rule, message, remedy(found[0]));
}

/** Why `isolation: off` is forbidden, or undefined when it is allowed. */
export function isolationOffRefusal(layers: GuardLayers): ManagedRefusal | undefined {
  return switchRefusal(
    layers,
    (g) => g.isolation?.allowOff === false,
    'isolation.allowOff=false',
    'forbids isolation off',
    (layer) =>
      layer === 'managed'
        ? `keep the server sandboxed; ${ADMIN_ONLY}`
        : 'keep the server sandboxed, or allow it with `warden policy edit --allow-off yes`',
  );
}

/** Why accepting any limit as best-effort is forbidden, or undefined. */
export function bestEffortSwitchRefusal(
  layers: GuardLayers,
  message = 'requires every limit to be enforced',
): ManagedRefusal | undefined {
  return switchRefusal(
    layers,
    (g) => g.isolation?.allowBestEffort === false,
    'isolation.allowBestEffort=false',
    message,
    (layer) =>
      layer === 'managed'
        ? 'remove the best-effort limits; a host that cannot enforce a limit refuses the launch'
        : 'remove the best-effort limits, or allow them with ' +
          '`warden policy edit --allow-best-effort yes`',
  );
}

/** Why accepting limits as best-effort is forbidden, or undefined. */
export function bestEffortRefusal(
  bestEffort: readonly LimitName[],
  layers: GuardLayers,
): ManagedRefusal | undefined {
  if (bestEffort.length === 0) return undefined;
  return bestEffortSwitchRefusal(
    layers,
    `requires every limit to be enforced; ${bestEffort.join(', ')} cannot be best-effort`,
  );
}

/**
 * Why a server may not be allowed `pattern`: a deny of a layer overlaps it, or a layer's
 * allowlist does not contain it. A pattern that does not parse is compared by its text.
 */
export function destinationRefusal(
  pattern: string,
  layers: GuardLayers,
): ManagedRefusal | undefined {
  const own = parsed(pattern);
  for (const d of layers.managed?.network?.deny ?? []) {
    const pd = parsed(d);
    if (own && pd ? patternsOverlap(own, pd) : pattern === d)
      return refusal(
        'managed',
        `network.deny "${d}"`,
        `denies ${d}, which covers the allowed "${pattern}"`,
        `remove that destination; ${ADMIN_ONLY}`,
      );
  }
  for (const [layer, g] of ruleLayers(layers)) {
    const list = g.network?.allow;
    if (!list) continue;
    const inside = list.some((a) => {
      const pa = parsed(a);
      return own && pa ? patternWithin(own, pa) : pattern === a;
    });
    if (!inside)
      return refusal(
        layer,
        'network.allow',
        `allows only ${list.join(', ') || 'no destination'}; "${pattern}" is outside it`,
        layer === 'managed'
          ? `choose a destination within the list; ${ADMIN_ONLY}`
          : 'choose a destination within the list, or widen it with ' +
              '`warden policy edit --allow-only PATTERN`',
      );
  }
  return undefined;
}

/** Why `value` is too high for the limit `name`, or undefined. Maxima are the managed layer's. */
export function limitRefusal(
  name: LimitName,
  value: number | undefined,
  layers: GuardLayers,
): ManagedRefusal | undefined {
  const max = layers.managed?.limits?.[name];
  if (max === undefined || value === undefined || value <= max) return undefined;
  return refusal(
    'managed',
    `limits.${name}=${max}`,
    `allows at most ${max} for ${name}, not ${value}`,
    `set ${name} to ${max} or less`,
  );
}

/** A hidden path without trailing slashes, as the CLI spells it (`~/.aws/` is `~/.aws`). */
const pathKey = (path: string) => path.replace(/(.)\/+$/, '$1');

/** Why a server may not see `path`: the managed layer hides it (however either spells it). */
export function unhideRefusal(path: string, layers: GuardLayers): ManagedRefusal | undefined {
  const managed = layers.managed?.hiddenPaths?.find((p) => pathKey(p) === pathKey(path));
  if (managed === undefined) return undefined;
  return refusal(
    'managed',
    `hiddenPaths "${managed}"`,
    `hides ${managed}; no server may see it`,
    'remove the exception',
  );
}

/** Why a server may not write a workspace file: a layer forbids every such exception. */
export function unprotectRefusal(layers: GuardLayers): ManagedRefusal | undefined {
  return switchRefusal(
    layers,
    (g) => g.workspace?.allowExceptions === false,
    'workspace.allowExceptions=false',
    'keeps every workspace file read-only for every server, with no exception',
    (layer) =>
      layer === 'managed'
        ? `remove the exception; ${ADMIN_ONLY}`
        : 'remove the exception, or allow exceptions with ' +
          '`warden policy edit --workspace-exceptions yes`',
  );
}

const RETENTION_MINIMA = [
  { own: 'maxAgeDays', min: 'minRetentionDays', unit: 'days', none: 'no age limit' },
  { own: 'maxSizeMb', min: 'minRetentionMb', unit: 'MB', none: 'no size limit' },
] as const;

/** Why an audit retention keeps less than the managed minimum (`null` keeps without limit). */
export function retentionRefusal(
  retention: AuditRetention,
  layers: GuardLayers,
): ManagedRefusal | undefined {
  for (const r of RETENTION_MINIMA) {
    const min = layers.managed?.audit?.[r.min];
    const own = retention[r.own];
    if (min === undefined || own === null || own >= min) continue;
    return refusal(
      'managed',
      `audit.${r.min}=${min}`,
      `requires the audit log to keep at least ${min} ${r.unit}, not ${own}`,
      `keep ${min} ${r.unit} or more (or ${r.none}); ${ADMIN_ONLY}`,
    );
  }
  return undefined;
}

/** The retention that applies: the user's, raised to the managed minimum where it keeps less. */
export function appliedRetention(
  retention: AuditRetention,
  managed: Guards | undefined,
): AuditRetention {
  const raise = (own: number | null, min: number | undefined) =>
    own === null || min === undefined ? own : Math.max(own, min);
  return {
    maxAgeDays: raise(retention.maxAgeDays, managed?.audit?.minRetentionDays),
    maxSizeMb: raise(retention.maxSizeMb, managed?.audit?.minRetentionMb),
  };
}
