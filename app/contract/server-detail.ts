/**
 * What the server detail screen asks of the core: how to point an AI client at a server (the
 * stdio command, the HTTP URL, each client's config entry), a bearer token for a client when the
 * user copies what needs one, and calling one of its tools through the gateway to try it.
 */
import { z } from 'zod';
import { clientIdSchema } from '../clients/client-formats';
import { serverNameSchema } from '../policy/policy-schema';

/**
 * Where a snippet takes its bearer token. A token is made only when the user copies it (each one
 * opens the gateway until revoked, so merely looking at the screen makes none), and only the
 * copied text carries it: the screen shows this.
 */
export const SNIPPET_TOKEN = '<made when you copy>';

/**
 * One client's config snippet for a server, as JSON text ready to paste (an HTTP one with
 * SNIPPET_TOKEN in place of its token).
 */
export const clientSnippetSchema = z.object({
  client: clientIdSchema,
  label: z.string(),
  transport: z.enum(['stdio', 'http']),
  json: z.string(),
});

export const connectInfoSchema = z.object({
  /** `warden connect NAME`, as this machine runs it (shell-quoted). */
  commandLine: z.string(),
  /** The HTTP front door, when it runs: the server's URL. */
  http: z.object({ url: z.string() }).optional(),
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
  /**
   * The bearer token of the HTTP gateway for `client`'s entry, made at its first copy in this run
   * of the core; `warden clients revoke CLIENT` revokes it with those `clients connect` wrote.
   */
  'servers.snippetToken': {
    input: z.object({ client: clientIdSchema }).strict(),
    output: z.object({ token: z.string() }),
  },
} as const;

/** Detail operations that only read, spread into `queries`. */
export const detailQueries = {
  'servers.connectInfo': {
    input: z.object({ name: serverNameSchema }).strict(),
    output: connectInfoSchema,
  },
} as const;

export type DetailOperationName = keyof typeof detailCommands | keyof typeof detailQueries;
