/** The format of a launch error where it crosses a boundary (instance views in the contract). */
import { z } from 'zod';
import { type LaunchError, plainKinds } from './launch-error';

const text = { message: z.string(), remedy: z.string() };

/** Validates a LaunchError (launch-error.ts holds the type, its causes and remedies). */
export const launchErrorSchema = z.union([
  z.object({ kind: z.enum(plainKinds), ...text }),
  z.object({
    kind: z.literal('invalid-network-policy'),
    ...text,
    fields: z.array(z.object({ field: z.string(), message: z.string() })),
  }),
  z.object({ kind: z.literal('secret-unreadable'), ...text, variable: z.string() }),
]) satisfies z.ZodType<LaunchError>;

// The schema's output and the hand-written type stay one and the same.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<z.infer<typeof launchErrorSchema>, LaunchError> = true;
void sameShape;
