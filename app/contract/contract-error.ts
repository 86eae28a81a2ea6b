/** Errors that cross the contract: plain data with a kind the UI can show and a remedy. */
import { z } from 'zod';

export const contractErrorSchema = z.object({
  kind: z.enum([
    'invalid-input',
    'not-found',
    'conflict',
    'isolation-unavailable',
    'internal',
    'unauthorized',
    /** The managed layer or the global guards forbid the change; `rule` names the rule. */
    'policy-forbidden',
  ]),
  message: z.string(),
  remedy: z.string().optional(),
  /** For invalid-input: the field each message concerns. */
  fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  /** For policy-forbidden: the rule, e.g. `managed isolation.allowOff=false`. */
  rule: z.string().optional(),
});
export type ContractError = z.infer<typeof contractErrorSchema>;

/** Thrown by contract clients when the core answers with an error, carrying it whole. */
export class ContractCallError extends Error {
  constructor(readonly error: ContractError) {
    super(error.message);
    this.name = 'ContractCallError';
  }
}

/**
 * The ContractError carried by a failed call, whichever way it crossed: a ContractCallError from
 * the WebSocket client, or the plain `{ name, message, error }` object that Electron's context
 * bridge delivers in its place (it keeps only the message of a real Error).
 */
export function contractErrorOf(error: unknown): ContractError | undefined {
  if (error instanceof ContractCallError) return error.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const carried = (error as { name?: unknown; error?: unknown }).error;
  const parsed = contractErrorSchema.safeParse(carried);
  return (error as { name?: unknown }).name === 'ContractCallError' && parsed.success
    ? parsed.data
    : undefined;
}
