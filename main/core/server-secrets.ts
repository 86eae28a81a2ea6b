/**
 * Which values of a server's environment are secrets, so that they are redacted everywhere they
 * would be logged: every keychain secret (a remote server's header values included), and set or
 * passed variables whose name says secret.
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
  for (const { name, ref } of server.remote?.headers ?? []) {
    const resolved = resolveSecret(ref);
    if (resolved)
      for (const value of headerSecrets(resolved)) out.push({ name: `header ${name}`, value });
  }
  for (const name of server.policy.env.pass) {
    const value = hostEnv[name];
    if (value && looksSecret(name)) out.push({ name, value });
  }
  return out;
}

/** A header value and, for `Scheme CREDENTIAL` (`Bearer …`), the credential alone: both secret. */
export function headerSecrets(value: string): string[] {
  const credential = /^[A-Za-z-]+ +(\S.*)$/.exec(value)?.[1];
  return credential ? [value, credential] : [value];
}
