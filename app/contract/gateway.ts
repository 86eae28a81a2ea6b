/**
 * Whether the MCP gateway holds its port. A port held by another program is shown in red with
 * its owner: AI clients pointed at it would talk to that program instead of Warden.
 */
import { z } from 'zod';

export const gatewayStatusSchema = z.discriminatedUnion('kind', [
  /** Not started by this process (e.g. a CLI core), or not yet. */
  z.object({ kind: z.literal('off') }),
  z.object({ kind: z.literal('running'), port: z.number().int() }),
  z.object({
    kind: z.literal('port-taken'),
    port: z.number().int(),
    /** Who holds the port, e.g. `a process of user bob (uid 1001), pid 42 (/usr/bin/python3)`. */
    owner: z.string(),
    /** The clients whose tokens were revoked because that program may have received them. */
    revoked: z.array(z.string()),
    remedy: z.string(),
  }),
]);
export type GatewayStatus = z.infer<typeof gatewayStatusSchema>;

/** Gateway operations that only read; spread into the contract's `queries`. */
export const gatewayQueries = {
  'gateway.status': { input: z.object({}).strict(), output: gatewayStatusSchema },
} as const;
