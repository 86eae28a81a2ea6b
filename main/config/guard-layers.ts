/**
 * Loads the guard layers: the managed policy file (root's, at a fixed place; WARDEN_MANAGED_POLICY
 * names another) and the global part of config.json. Both are validated with the guards schema;
 * a file that cannot be read or does not validate is an error, never ignored, so that launches
 * fail closed until it is fixed.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditRetention } from '../../app/audit/audit-settings';
import {
  type GuardLayers,
  checkPolicyAllowed,
  effectivePolicy,
} from '../../app/policy/effective-policy';
import { appliedRetention, refusalText, retentionRefusal } from '../../app/policy/managed-rules';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import type { Policy } from '../../app/policy/policy-schema';
import type { Guards } from '../../app/policy/guards';
import { type Result, err, ok } from '../../app/result';

/** A guard layer that cannot be used, with where it is and what to do. */
export interface GuardLayerError {
  kind: 'managed-policy-invalid' | 'global-policy-invalid';
  path: string;
  message: string;
  remedy: string;
}

/** Where the managed policy file lives on this platform, or where WARDEN_MANAGED_POLICY says. */
export function managedPolicyPath(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const explicit = env.WARDEN_MANAGED_POLICY;
  if (explicit && explicit.trim() !== '') return explicit;
  if (platform === 'darwin') return '/Library/Application Support/mcp-warden/managed-policy.json';
  if (platform === 'win32')
    return join(env.ProgramData ?? 'C:\\ProgramData', 'mcp-warden', 'managed-policy.json');
  return '/etc/mcp-warden/managed-policy.json';
}

/**
 * The managed layer, or undefined when there is no file. At the fixed place the file must belong
 * to root; anywhere, it must not be writable by group or others, since whoever can write it can
 * lift every rule it sets.
 */
export async function loadManagedPolicy(
  path: string,
  options: { requireRootOwner: boolean },
): Promise<Result<Guards | undefined, GuardLayerError>> {
  const bad = (message: string, remedy: string) =>
    err<GuardLayerError>({ kind: 'managed-policy-invalid', path, message, remedy });
  let text: string;
  try {
    const info = await stat(path);
    if (options.requireRootOwner && info.uid !== 0)
      return bad(`${path} is not owned by root`, `make it root's: sudo chown root ${path}`);
    if ((info.mode & 0o022) !== 0)
      return bad(
        `${path} is writable by group or others`,
        `make it writable by its owner only: chmod go-w ${path}`,
      );
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return bad(`${path} cannot be read: ${(error as Error).message}`, `make ${path} readable`);
  }
  return parseGuards(text, path, 'managed-policy-invalid');
}

/** The global part of `$WARDEN_HOME/config.json`, for callers that do not open the store. */
export async function loadGlobalGuards(
  wardenHome: string,
): Promise<Result<Guards | undefined, GuardLayerError>> {
  const path = join(wardenHome, 'config.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err({
      kind: 'global-policy-invalid',
      path,
      message: `${path} cannot be read: ${(error as Error).message}`,
      remedy: `make ${path} readable`,
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // The store moves an unusable config aside and reports it; the guards are then the defaults.
    return ok(undefined);
  }
  const guards = (doc as { guards?: unknown } | null)?.guards;
  if (guards === undefined) return ok(undefined);
  return parseGuards(JSON.stringify(guards), path, 'global-policy-invalid');
}

/** Validates guards read from `path`; the schemas load here, only when there is a file to check. */
async function parseGuards(
  text: string,
  path: string,
  kind: GuardLayerError['kind'],
): Promise<Result<Guards, GuardLayerError>> {
  const fix = `fix ${path}; launches are refused until it is valid`;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return err({
      kind,
      path,
      message: `${path} is not valid JSON: ${(error as Error).message}`,
      remedy: fix,
    });
  }
  const [{ guardsSchema }, { describeFieldErrors, validate }] = await Promise.all([
    import('../../app/policy/guards-schema'),
    import('../../app/policy/validate'),
  ]);
  const parsed = validate(guardsSchema, doc);
  if (!parsed.ok)
    return err({
      kind,
      path,
      message: `${path}: ${describeFieldErrors(parsed.error)}`,
      remedy: fix,
    });
  return ok(parsed.value);
}

/** Both layers, for a launch or a policy check; the first unusable one is the error. */
export async function loadGuardLayers(options: {
  global: Guards | undefined;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<Result<GuardLayers, GuardLayerError>> {
  const env = options.env ?? process.env;
  const explicit = (env.WARDEN_MANAGED_POLICY ?? '').trim() !== '';
  const managed = await loadManagedPolicy(managedPolicyPath(env), {
    requireRootOwner: !explicit && process.platform !== 'win32',
  });
  if (!managed.ok) return managed;
  return ok({ global: options.global, managed: managed.value });
}

/**
 * The policy a launch enforces: the server's own combined with the layers, or the refusal (a
 * managed rule it breaks, or a layer that cannot be read) as an isolation error naming it.
 */
export async function launchPolicy(
  policy: Policy,
  options: { global: Guards | undefined; env?: Readonly<Record<string, string | undefined>> },
): Promise<Result<Policy, LaunchError>> {
  const layers = await loadGuardLayers(options);
  if (!layers.ok)
    return err(launchError('policy-forbidden', layers.error.message, layers.error.remedy));
  const effective = effectivePolicy(policy, layers.value);
  if (!effective.ok) {
    const e = effective.error;
    return err(launchError('policy-forbidden', refusalText(e), e.remedy));
  }
  return ok(effective.value.policy);
}

/** A change a layer forbids, as the contract and the CLI report it. */
export interface LayerRefusal {
  kind: 'policy-forbidden';
  message: string;
  rule: string;
  remedy: string;
}

function unusable(error: GuardLayerError): LayerRefusal {
  return {
    kind: 'policy-forbidden',
    message: error.message,
    rule: `managed policy file ${error.path}`,
    remedy: error.remedy,
  };
}

/** Why an audit retention may not be saved (or used): below the managed minimum, or no layers. */
export async function checkRetention(
  retention: AuditRetention,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<LayerRefusal | undefined> {
  const layers = await loadGuardLayers({ global: undefined, ...(env ? { env } : {}) });
  if (!layers.ok) return unusable(layers.error);
  const refused = retentionRefusal(retention, layers.value);
  return (
    refused && {
      ...refused,
      kind: 'policy-forbidden',
      message: refusalText(refused),
    }
  );
}

/**
 * The retention to apply: the user's raised to the managed minimum, or undefined while the
 * managed file cannot be used (nothing is pruned then: keeping rows is the closed side).
 */
export async function retentionToApply(
  retention: AuditRetention,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<AuditRetention | undefined> {
  const layers = await loadGuardLayers({ global: undefined, ...(env ? { env } : {}) });
  return layers.ok ? appliedRetention(retention, layers.value.managed) : undefined;
}

/**
 * Checks a policy being saved against the layers: the rule it breaks, or the managed file that
 * cannot be read (changes are refused while it is broken, as launches are).
 */
export async function checkAgainstLayers(
  policy: Policy,
  global: () => Guards | undefined,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<LayerRefusal | undefined> {
  const layers = await loadGuardLayers({ global: global(), ...(env ? { env } : {}) });
  if (!layers.ok) return unusable(layers.error);
  const refused = checkPolicyAllowed(policy, layers.value);
  if (!refused) return undefined;
  return {
    kind: 'policy-forbidden',
    message: refusalText(refused),
    rule: refused.rule,
    remedy: refused.remedy,
  };
}
