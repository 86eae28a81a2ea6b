/**
 * Adding a remote server: its header values go to the secret store, each under a reference of
 * the server's own, and config.json keeps only the header names and those references.
 */
import type { AddServerInput, RemoteInput } from '../../app/contract/servers';
import type { Policy, RemoteSpec, Server } from '../../app/policy/policy-schema';
import { type Result, err } from '../../app/result';
import type { ConfigStore, ConfigStoreError } from '../config/config-store';
import type { SecretCache } from '../core/secret-cache';

/** The reference under which a remote server's header value is stored. */
export function headerRef(server: string, header: string): string {
  return `${server}/header/${header.toLowerCase()}`;
}

/** `remote` with its header values replaced by references (what config.json holds). */
export function remoteSpec(server: string, remote: RemoteInput): RemoteSpec {
  return {
    ...remote,
    headers: remote.headers.map((h) => ({ name: h.name, ref: headerRef(server, h.name) })),
  };
}

/**
 * Stores the header values, then adds the server; a server that cannot be added leaves no
 * value behind, and an existing server's values are never overwritten.
 */
export async function addRemoteServer(
  config: ConfigStore,
  secrets: SecretCache,
  input: Pick<AddServerInput, 'name'> & { remote: RemoteInput; policy: Policy },
): Promise<Result<Server, ConfigStoreError | { kind: 'internal'; message: string }>> {
  const { name, remote } = input;
  if (config.getServer(name))
    return err({ kind: 'conflict', message: `a server named "${name}" already exists` });
  const names = remote.headers.map((h) => h.name.toLowerCase());
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined)
    return err({
      kind: 'invalid-input',
      message: `the header ${twice} is given twice`,
      fields: [{ field: 'remote.headers', message: `the header ${twice} is given twice` }],
    });
  const spec = remoteSpec(name, remote);
  for (const h of remote.headers) {
    const saved = await secrets.set(headerRef(name, h.name), h.value);
    if (!saved.ok) return err({ kind: 'internal', message: saved.error });
  }
  const added = await config.addServer({ name, remote: spec, policy: input.policy });
  if (!added.ok) for (const h of spec.headers) await secrets.store.delete(h.ref);
  return added;
}
