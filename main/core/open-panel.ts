/**
 * `warden open`'s request on the control channel: bring up the running core's control panel for
 * the user who asked. Not a contract operation (the panel itself has no use for it): only the
 * owner of the state folder reaches the channel, and that user may already drive the core through
 * it. The app answers by showing its window; `warden serve` with a one-time sign-in URL, which
 * `warden open` hands to the browser through a sign-in file (never in an argv).
 */
import { z } from 'zod';

export const OPEN_PANEL_OP = 'panel.open';

export const panelOpenedSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('window') }),
  z.object({
    kind: z.literal('browser'),
    port: z.number().int().min(1).max(65535),
    signInUrl: z.string().startsWith('http://127.0.0.1:'),
  }),
]);
export type PanelOpened = z.infer<typeof panelOpenedSchema>;
