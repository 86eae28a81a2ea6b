/** Messages of the WebSocket transport (web mode). Electron IPC carries the same shapes. */
import { z } from 'zod';
import { contractErrorSchema } from './contract-error';

export const wireRequestSchema = z.object({
  id: z.number().int().nonnegative(),
  op: z.string(),
  input: z.unknown(),
});

export const wireReplySchema = z.union([
  z.object({ id: z.number(), ok: z.literal(true), value: z.unknown() }),
  z.object({ id: z.number(), ok: z.literal(false), error: contractErrorSchema }),
]);

export const wireEventSchema = z.object({ event: z.string(), payload: z.unknown() });
