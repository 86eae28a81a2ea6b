/**
 * A server as the config store's add and update leave it: the input checked (the schemas, the
 * launch's script) and the server built, with its revision and whether its command must be
 * confirmed again. Apart from the store, which holds the lock, checks a policy against the guard
 * layers, reads and writes the file and announces the change, so that these rules read in one
 * place. Synchronous: the store awaits only what it awaited before these were apart.
 */
import { canonicalJson } from '../../app/audit/canonical-json';
import type { Policy, Server } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import type { ConfigStoreError } from './config-store';
import { scriptError } from './script-error';
import { type ServerSource, checkServerInput, sourceOf } from './server-input';
import type { Schemas } from './config-text';

/** A server to add; `acknowledged` says the user has seen its full command. */
export type NewServer = ServerSource & { name: string; policy: Policy; acknowledged?: boolean };

/** The fields a change sets on a server; the others stay as they are. */
export type ServerPatch = Partial<ServerSource> & { policy?: Policy; acknowledged?: boolean };

/** A server's input as its checks passed it: its launch or URL, and its policy. */
type Checked = ServerSource & { policy: Policy };

/**
 * Checks a server to add against the schemas and its launch's script. The guard layers' check of
 * its policy, which may wait, is the store's, next.
 */
export function checkNewServer(
  schemas: Schemas,
  input: NewServer,
): Result<Checked, ConfigStoreError> {
  const checked = checkServerInput(schemas, input.name, input, input.policy);
  if (!checked.ok) return checked;
  const script = scriptError(checked.value.launch, checked.value.policy);
  if (script) return err(script);
  return checked;
}

/** The server as first stored, from its checked input: revision 1, created `at`. */
export function newServer(input: NewServer, checked: Checked, at: string): Server {
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

/** A change checked against the schemas and its script: what it changes, for the store. */
export interface CheckedPatch {
  checked: Checked;
  /** A new command or a new URL: the user confirms it again before it starts. */
  launchChanged: boolean;
  /** The guard layers check a changed policy (the store's part, which may wait). */
  policyChanged: boolean;
}

/**
 * Checks `patch` applied to `before` against the schemas and, when the command or what the server
 * sees changes, its launch's script.
 */
export function checkPatch(
  schemas: Schemas,
  before: Server,
  patch: ServerPatch,
): Result<CheckedPatch, ConfigStoreError> {
  const source = { launch: patch.launch ?? before.launch, remote: patch.remote ?? before.remote };
  const policy = patch.policy ?? before.policy;
  const checked = checkServerInput(schemas, before.name, source, policy);
  if (!checked.ok) return checked;
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
  return ok({ checked: checked.value, launchChanged, policyChanged });
}

/**
 * `before` with a checked change applied, at `at`. A change of its launch spec or policy bumps
 * the revision; a new command must be confirmed again before it starts.
 */
export function patchedServer(
  before: Server,
  patch: ServerPatch,
  { checked, launchChanged, policyChanged }: CheckedPatch,
  at: string,
): Server {
  const changed = launchChanged || policyChanged;
  const { launch: _launch, remote: _remote, ...rest } = before;
  return {
    ...rest,
    ...sourceOf(checked),
    policy: checked.policy,
    acknowledged: patch.acknowledged ?? (launchChanged ? false : before.acknowledged),
    revision: changed ? before.revision + 1 : before.revision,
    updatedAt: at,
  };
}
