/**
 * Secret values the core has resolved, by reference, so that redaction (synchronous, on every
 * audit event) knows them. Values come from the SecretStore; a reference that cannot be resolved
 * refuses the launch that needs it.
 */
import { type LaunchError, secretUnreadable } from '../../app/contract/launch-error';
import type { Server } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import type { SecretStore } from '../secrets/secret-store';

export class SecretCache {
  private readonly values = new Map<string, string>();
  private changes = 0;

  /** Grows whenever a value is learned or changed (what depends on the values recomputes). */
  get revision(): number {
    return this.changes;
  }

  constructor(readonly store: SecretStore) {}

  /** A value resolved earlier, for redaction. */
  known(ref: string): string | undefined {
    return this.values.get(ref);
  }

  /** Resolves every secret `server` needs; the first missing one is an error naming it. */
  async resolveFor(server: Server): Promise<Result<Record<string, string>, LaunchError>> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(server.policy.env.set)) {
      if (value.kind !== 'secret') continue;
      const got = await this.store.get(value.ref);
      if (!got.ok) return err(secretUnreadable(name, `${got.error.message} (${got.error.remedy})`));
      if (got.value === undefined) return err(secretUnreadable(name));
      this.remember(value.ref, got.value);
      out[value.ref] = got.value;
    }
    return ok(out);
  }

  /** Resolves the header values of a remote server, by header name. */
  async resolveHeaders(server: Server): Promise<Result<Record<string, string>, LaunchError>> {
    const out: Record<string, string> = {};
    for (const { name, ref } of server.remote?.headers ?? []) {
      const what = `the header ${name}`;
      const got = await this.store.get(ref);
      if (!got.ok) return err(secretUnreadable(what, `${got.error.message} (${got.error.remedy})`));
      if (got.value === undefined) return err(secretUnreadable(what));
      this.remember(ref, got.value);
      out[name] = got.value;
    }
    return ok(out);
  }

  /** Stores a new value and remembers it for redaction. */
  async set(ref: string, value: string): Promise<Result<void, string>> {
    const saved = await this.store.set(ref, value);
    if (!saved.ok) return err(`${saved.error.message} (${saved.error.remedy})`);
    this.remember(ref, value);
    return ok(undefined);
  }

  private remember(ref: string, value: string): void {
    if (this.values.get(ref) === value) return;
    this.values.set(ref, value);
    this.changes += 1;
  }
}
