/** Messages of the WebSocket transport (web mode) and of the browser sign-in that opens it. */
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

/**
 * The header in which the page shows its session secret to `GET /session` (204 live, 401 not)
 * and to `DELETE /session`, which signs it out (204 ended, 401 was not live).
 */
export const SESSION_HEADER = 'X-Warden-Session';

/** The close code of a browser's contract socket once its session ended: no use retrying. */
export const SESSION_ENDED_CODE = 4401;

/**
 * Why a browser's session ended, as the close reason of SESSION_ENDED_CODE and in
 * `/login?ended=`: signed out, expired (or pushed out by newer sessions), or forgotten by the
 * page without the server confirming it (unreachable).
 */
export const sessionEndSchema = z.enum(['signed-out', 'expired', 'unconfirmed']);
export type SessionEnd = z.infer<typeof sessionEndSchema>;

/** What the page posts to `/session`: the one-time code `/login` forwarded in the fragment. */
export const sessionRequestSchema = z.object({ code: z.string().max(128) });

/** The answer to a good code: a fresh session secret (32 random bytes, base64url). */
export const sessionAnswerSchema = z.object({ session: z.string().regex(/^[A-Za-z0-9_-]{43}$/) });
