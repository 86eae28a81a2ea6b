/**
 * Which values of a server's environment are secrets, so that they are redacted everywhere they
 * would be logged: every keychain secret, and set or passed variables whose name says secret.
 */
import type { AuditSecret } from '../../app/audit/redact';
import type { Server } from '../../app/policy/policy-schema';
import { looksSecret } from '../../app/policy/secret-names';

/** The secrets of `server`, resolved through `resolveSecret` and the host environment. */
export function serverSecrets(
  server: Readonly<Server>,
  resolveSecret: (ref: string) => string | undefined,
  hostEnv: Readonly<Record<string, string | undefined>>,
): AuditSecret[] {
  const out: AuditSecret[] = [];
  for (const [name, value] of Object.entries(server.policy.env.set)) {
    if (value.kind === 'secret') {
      const resolved = resolveSecret(value.ref);
      if (resolved) out.push({ name, value: resolved });
    } else if (looksSecret(name)) out.push({ name, value: value.value });
  }
  for (const name of server.policy.env.pass) {
    const value = hostEnv[name];
    if (value && looksSecret(name)) out.push({ name, value });
  }
  return out;
}
