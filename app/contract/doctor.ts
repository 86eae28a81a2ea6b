/** What the host can enforce, as `warden doctor` and the Host status screen report it. */
import { z } from 'zod';
import { limitNames } from '../policy/policy-schema';

export const doctorCheckSchema = z.object({
  id: z.string(),
  label: z.string(),
  status: z.enum(['ok', 'missing', 'degraded']),
  detail: z.string(),
  /** Present when status is not ok: the exact thing to do. */
  remedy: z.string().optional(),
});
export type DoctorCheck = z.infer<typeof doctorCheckSchema>;

export const limitSupportSchema = z.object({
  enforced: z.boolean(),
  /** How it is enforced (e.g. "setrlimit RLIMIT_NOFILE") or why it is not. */
  how: z.string(),
  /** Enforced per process, not for the sandbox as a whole (memory without a cgroup). */
  partial: z.boolean().optional(),
});
export type LimitSupport = z.infer<typeof limitSupportSchema>;

/** Filesystem roots to check on this host, as the policy editor lists them. */
export const checkRootsInputSchema = z
  .object({ paths: z.array(z.string().min(1).max(4096)).max(256) })
  .strict();

/** One root as a launch would see it: usable (and where it resolves), or why not. */
export const rootCheckSchema = z.discriminatedUnion('ok', [
  z.object({ path: z.string(), ok: z.literal(true), resolved: z.string() }),
  z.object({ path: z.string(), ok: z.literal(false), message: z.string(), remedy: z.string() }),
]);
export type RootCheck = z.infer<typeof rootCheckSchema>;

/** One escape a verification run attempted inside the sandbox, and what became of it. */
export const verifyProbeSchema = z.object({
  id: z.string(),
  label: z.string(),
  /** refused: the sandbox stopped it; escaped: it got through; not-run: it could not be tried. */
  status: z.enum(['refused', 'escaped', 'not-run']),
  detail: z.string(),
});
export type VerifyProbe = z.infer<typeof verifyProbeSchema>;

/** A run of real escape attempts inside one backend, with when and on what host it ran. */
export const verificationSchema = z.object({
  backend: z.string(),
  /** ISO time the run finished. */
  at: z.string(),
  /** True when every probe that ran was refused and none was left unrun. */
  passed: z.boolean(),
  probes: z.array(verifyProbeSchema),
  /** What the result depends on (kernel, backend version, AppArmor state); a change re-runs it. */
  host: z.record(z.string(), z.string()),
});
export type Verification = z.infer<typeof verificationSchema>;

export const doctorReportSchema = z.object({
  platform: z.string(),
  arch: z.string(),
  backend: z.object({
    name: z.string(),
    available: z.boolean(),
    version: z.string().optional(),
  }),
  checks: z.array(doctorCheckSchema),
  limits: z.record(z.enum(limitNames), limitSupportSchema),
  /** The last verification run per backend, when one has run on this machine. */
  verifications: z.array(verificationSchema).optional(),
});
export type DoctorReport = z.infer<typeof doctorReportSchema>;
