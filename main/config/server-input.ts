/**
 * A server's name, source and policy as a change to config.json gives them, checked against the
 * schemas with each field's error named, and a source written without an `undefined` key.
 */
import type { LaunchSpec, Policy, RemoteSpec } from '../../app/policy/policy-schema';
import { type FieldError, describeFieldErrors, validate } from '../../app/policy/validate';
import { type Result, err, ok } from '../../app/result';
import type { ConfigStoreError } from './config-store';

import type { Schemas } from './config-text';

/** Where a server comes from: a command to launch, or a remote server's URL. */
export interface ServerSource {
  launch?: LaunchSpec;
  remote?: RemoteSpec;
}

/** Only the source field that is set, so that config.json holds no `undefined` key. */
export function sourceOf(s: ServerSource): ServerSource {
  return s.launch ? { launch: s.launch } : s.remote ? { remote: s.remote } : {};
}

/** Checks a server's name, source (a command or a URL, one of them) and policy. */
export function checkServerInput(
  { serverNameSchema, launchSchema, remoteSchema, policySchema }: Schemas,
  name: string,
  source: Partial<ServerSource>,
  policy: Policy,
): Result<ServerSource & { policy: Policy }, ConfigStoreError> {
  const fields: FieldError[] = [];
  const n = validate(serverNameSchema, name);
  if (!n.ok) fields.push(...n.error.map((e) => ({ ...e, field: 'name' })));
  if ((source.launch === undefined) === (source.remote === undefined))
    fields.push({
      field: 'launch',
      message: 'give either a command or a URL (remote), not both',
    });
  const l = source.launch && validate(launchSchema, source.launch);
  if (l && !l.ok) fields.push(...l.error.map((e) => ({ ...e, field: `launch.${e.field}` })));
  const r = source.remote && validate(remoteSchema, source.remote);
  if (r && !r.ok) fields.push(...r.error.map((e) => ({ ...e, field: `remote.${e.field}` })));
  const p = validate(policySchema, policy);
  if (!p.ok) fields.push(...p.error.map((e) => ({ ...e, field: `policy.${e.field}` })));
  if (!p.ok || fields.length > 0) {
    return err({ kind: 'invalid-input', message: describeFieldErrors(fields), fields });
  }
  const checked = l?.ok ? { launch: l.value } : r?.ok ? { remote: r.value } : {};
  return ok({ ...checked, policy: p.value });
}
