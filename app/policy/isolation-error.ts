/**
 * Why a server's declared isolation cannot be enforced here. A launch that meets one of these
 * fails closed: it never falls back to a bare spawn.
 */
import { z } from 'zod';

export const isolationUnavailableKinds = [
  'bwrap-missing',
  'userns-blocked',
  'seccomp-unavailable',
  'unsupported-platform',
  'unsupported-arch',
  'limit-unsupported',
  'root-invalid',
  'backend-failed',
  'landlock-unavailable',
  /** The managed layer or the global guards forbid it, or cannot be read (fail closed). */
  'policy-forbidden',
] as const;

export const isolationUnavailableSchema = z.object({
  kind: z.enum(isolationUnavailableKinds),
  message: z.string(),
  /** What a person can do about it: a package, a setting, or turning isolation off knowingly. */
  remedy: z.string(),
});
export type IsolationUnavailable = z.infer<typeof isolationUnavailableSchema>;

/** Builds the typed error. */
export function isolationUnavailable(
  kind: IsolationUnavailable['kind'],
  message: string,
  remedy: string,
): IsolationUnavailable {
  return { kind, message, remedy };
}
