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
});
export type DoctorReport = z.infer<typeof doctorReportSchema>;
