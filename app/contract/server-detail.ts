/**
 * What the server detail screen asks of the core: how to point an AI client at a server (the
 * stdio command, the HTTP URL with its token, each client's config entry), and calling one of its
 * tools through the gateway to try it.
 */
import { z } from 'zod';
import { clientIdSchema } from '../clients/client-formats';
import { serverNameSchema } from '../policy/policy-schema';

/** One client's config snippet for a server, as JSON text ready to paste. */
export const clientSnippetSchema = z.object({
  client: clientIdSchema,
  label: z.string(),
  transport: z.enum(['stdio', 'http']),
  json: z.string(),
});

export const connectInfoSchema = z.object({
  /** `warden connect NAME`, as this machine runs it (shell-quoted). */
  commandLine: z.string(),
  /** The HTTP front door, when it runs: the server's URL and the bearer token. */
  http: z.object({ url: z.string(), token: z.string() }).optional(),
  snippets: z.array(clientSnippetSchema),
});
export type ConnectInfo = z.infer<typeof connectInfoSchema>;

export const toolCallInputSchema = z
  .object({
    server: serverNameSchema,
    tool: z.string().min(1).max(256),
    arguments: z.record(z.string(), z.unknown()),
  })
  .strict();

export const toolCallResultSchema = z.object({
  isError: z.boolean(),
  /** The text of the result's content blocks (other blocks are named by their type). */
  text: z.string(),
});
export type ToolCallResult = z.infer<typeof toolCallResultSchema>;

/** Detail operations that change state (a tool call may), spread into `commands`. */
export const detailCommands = {
  /** Calls a tool through the gateway in a new instance, as a client named "Warden Try it". */
  'tools.call': { input: toolCallInputSchema, output: toolCallResultSchema },
} as const;

/** Detail operations that only read, spread into `queries`. */
export const detailQueries = {
  'servers.connectInfo': {
    input: z.object({ name: serverNameSchema }).strict(),
    output: connectInfoSchema,
  },
} as const;

export type DetailOperationName = keyof typeof detailCommands | keyof typeof detailQueries;
