/**
 * `warden open`'s request on the control channel: bring up the running core's control panel for
 * the user who asked. Not a contract operation (the panel itself has no use for it): only the
 * owner of the state folder reaches the channel, and that user may already drive the core through
 * it. The app answers by showing its window; `warden serve` with a one-time sign-in URL at both
 * its addresses, which `warden open` hands to the browser through a sign-in file (never in an
 * argv).
 */
import { z } from 'zod';

export const OPEN_PANEL_OP = 'panel.open';

/**
 * One sign-in, at both addresses of `warden serve` (request-guard.ts): the per-run origin
 * `http://<32 hex>.localhost:PORT`, and the port's own `http://127.0.0.1:PORT` for browsers that
 * cannot reach that name. Both carry the same one-time code; the probe tells the sign-in file
 * which one to use (reachable-probe.ts).
 */
export const signInLinksSchema = z.object({
  url: z.string().regex(/^http:\/\/[0-9a-f]{32}\.localhost:\d{1,5}\/login\?code=[\w-]+$/),
  fallbackUrl: z.string().regex(/^http:\/\/127\.0\.0\.1:\d{1,5}\/login\?code=[\w-]+$/),
  /** `/reachable?q=QUERY` on the per-run name, and what only Warden answers to it (once). */
  probeUrl: z.string().regex(/^http:\/\/[0-9a-f]{32}\.localhost:\d{1,5}\/reachable\?q=[\w-]+$/),
  probeAnswer: z.string().regex(/^[\w-]{16,64}$/),
});
export type SignInLinks = z.infer<typeof signInLinksSchema>;

export const panelOpenedSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('window') }),
  z.object({
    kind: z.literal('browser'),
    port: z.number().int().min(1).max(65535),
    signIn: signInLinksSchema,
  }),
]);
export type PanelOpened = z.infer<typeof panelOpenedSchema>;
