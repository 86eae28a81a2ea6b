/**
 * A server as the config store's add and update leave it: the input checked (the schemas, the
 * launch's script, the guard layers) and the server built, with its revision and whether its
 * command must be confirmed again. Apart from the store, which holds the lock, reads and writes
 * the file and announces the change, so that these rules read in one place.
 */
import { canonicalJson } from '../../app/audit/canonical-json';
import type { Policy, Server } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import type { ConfigStoreError, ConfigStoreOptions } from './config-store';
import { scriptError } from './script-error';
import { type ServerSource, checkServerInput, sourceOf } from './server-input';
import { type Schemas, loadSchemas } from './config-text';

/** A server to add; `acknowledged` says the user has seen its full command. */
export type NewServer = ServerSource & { name: string; policy: Policy; acknowledged?: boolean };

/** The fields a change sets on a server; the others stay as they are. */
export type ServerPatch = Partial<ServerSource> & { policy?: Policy; acknowledged?: boolean };

type PolicyCheck = ConfigStoreOptions['checkPolicy'];

/** Checks a server to add: its fields against the schemas, its launch's script, its policy. */
export async function checkNewServer(
  input: NewServer,
  checkPolicy: PolicyCheck,
): Promise<Result<ServerSource & { policy: Policy }, ConfigStoreError>> {
  const checked = checkServerInput(await loadSchemas(), input.name, input, input.policy);
  if (!checked.ok) return checked;
  const script = scriptError(checked.value.launch, checked.value.policy);
  if (script) return err(script);
  const forbidden = await checkPolicy?.(checked.value.policy);
  if (forbidden) return err(forbidden);
  return checked;
}

/** The server as first stored, from its checked input: revision 1, created `at`. */
export function newServer(
  input: NewServer,
  checked: ServerSource & { policy: Policy },
  at: string,
): Server {
  return {
    name: input.name,
    ...sourceOf(checked),
    policy: checked.policy,
    revision: 1,
    createdAt: at,
    updatedAt: at,
    acknowledged: input.acknowledged ?? false,
  };
}

/**
 * `before` with `patch` applied, checked. A change of its launch spec or policy bumps the
 * revision; a new command must be confirmed again before it starts.
 */
export async function patchedServer(
  schemas: Schemas,
  before: Server,
  patch: ServerPatch,
  checkPolicy: PolicyCheck,
  now: () => Date,
): Promise<Result<Server, ConfigStoreError>> {
  const source = { launch: patch.launch ?? before.launch, remote: patch.remote ?? before.remote };
  const policy = patch.policy ?? before.policy;
  const checked = checkServerInput(schemas, before.name, source, policy);
  if (!checked.ok) return checked;
  // A new command or a new URL: the user confirms it again before it starts.
  const launchChanged =
    canonicalJson(checked.value.launch ?? null) !== canonicalJson(before.launch ?? null) ||
    canonicalJson(checked.value.remote ?? null) !== canonicalJson(before.remote ?? null);
  // Checked when the command or what the server sees changes, so that a network grant saved
  // to an older server's policy never fails on it.
  const sightChanged =
    launchChanged ||
    checked.value.policy.isolation !== before.policy.isolation ||
    canonicalJson(checked.value.policy.filesystem) !== canonicalJson(before.policy.filesystem);
  const script = sightChanged && scriptError(checked.value.launch, checked.value.policy);
  if (script) return err(script);
  const policyChanged = canonicalJson(checked.value.policy) !== canonicalJson(before.policy);
  const forbidden = policyChanged && (await checkPolicy?.(checked.value.policy));
  if (forbidden) return err(forbidden);
  const changed = launchChanged || policyChanged;
  const { launch: _launch, remote: _remote, ...rest } = before;
  return ok({
    ...rest,
    ...sourceOf(checked.value),
    policy: checked.value.policy,
    acknowledged: patch.acknowledged ?? (launchChanged ? false : before.acknowledged),
    revision: changed ? before.revision + 1 : before.revision,
    updatedAt: now().toISOString(),
  });
}
