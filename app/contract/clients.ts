/**
 * Contract payloads for bringing servers in from AI clients and connecting the clients back
 * through Warden: the import preview (every server, its full command, the proposed policy and
 * warnings), the per-server choices, the clients' status, and the connect/disconnect results.
 */
import { z } from 'zod';
import { clientIdSchema } from '../clients/client-formats';
import {
  launchSchema,
  policySchema,
  remoteSchema,
  serverNameSchema,
} from '../policy/policy-schema';

const keyPathSchema = z.array(z.union([z.string(), z.number()]));

export const importCandidateSchema = z.object({
  /** Stable id of the entry within its file: its key path as JSON. */
  id: z.string(),
  entryName: z.string(),
  keyPath: keyPathSchema,
  workspace: z.string().optional(),
  /**
   * ready: can be imported; imported: already a Warden server; remote: kept by older versions for
   * URL entries (now imported as remote servers); invalid: an entry the client file holds in a
   * shape Warden cannot run; through-warden: already points at Warden.
   */
  status: z.enum(['ready', 'imported', 'remote', 'invalid', 'through-warden']),
  /** The Warden server name proposed (or used) for it. */
  name: z.string(),
  launch: launchSchema.optional(),
  /** A remote server's upstream (header values are kept as secrets, never here). */
  remote: remoteSchema.optional(),
  /** The full command line (or a remote server's URL), always shown. */
  commandLine: z.string().optional(),
  policy: policySchema.optional(),
  presets: z.array(z.string()),
  roots: z.array(
    z.object({
      path: z.string(),
      access: z.enum(['read', 'write']),
      why: z.string(),
      from: z.string(),
    }),
  ),
  /** Each environment variable and how it is carried; secret values are never shown. */
  env: z.array(
    z.object({
      key: z.string(),
      kind: z.enum(['plain', 'secret', 'pass', 'input', 'reference', 'preset']),
      shown: z.string(),
    }),
  ),
  warnings: z.array(z.object({ kind: z.string(), message: z.string() })),
  notes: z.array(z.string()),
});
export type ImportCandidate = z.infer<typeof importCandidateSchema>;

export const importPreviewSchema = z.object({
  client: clientIdSchema,
  label: z.string(),
  file: z.string(),
  candidates: z.array(importCandidateSchema),
  /** Where values that look like secrets are kept, said plainly. */
  secretStore: z.string(),
});
export type ImportPreview = z.infer<typeof importPreviewSchema>;

/**
 * The project folder whose project files count (`.mcp.json`, `.cursor/mcp.json`,
 * `.vscode/mcp.json`): the command line's current folder when it goes through a running core;
 * default, the core's own.
 */
const workspaceSchema = z.string().min(1).max(4096).optional();

export const clientFileInputSchema = z.object({
  client: clientIdSchema,
  /** A file the user picked instead of the client's usual location. */
  path: z.string().min(1).optional(),
  workspace: workspaceSchema,
});

export const importChoiceSchema = z.object({
  id: z.string(),
  include: z.boolean(),
  name: serverNameSchema.optional(),
  /** The policy as the user edited it in the preview; else the proposed one. */
  policy: policySchema.optional(),
});
export type ImportChoice = z.infer<typeof importChoiceSchema>;

export const importInputSchema = clientFileInputSchema.extend({
  /** Per-server choices; entries without a choice are imported when ready. */
  choices: z.array(importChoiceSchema).optional(),
});

export const importResultSchema = z.object({
  file: z.string(),
  imported: z.array(z.object({ id: z.string(), name: z.string() })),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
  notes: z.array(z.string()),
});
export type ImportResult = z.infer<typeof importResultSchema>;

export const connectInputSchema = clientFileInputSchema.extend({
  /** stdio (`warden connect NAME`) or the Streamable HTTP URL; default: the client's best. */
  transport: z.enum(['stdio', 'http']).optional(),
});

export const connectPreviewSchema = z.object({
  client: clientIdSchema,
  file: z.string(),
  transport: z.enum(['stdio', 'http']),
  /** Unified diff of the client file, before → after. */
  diff: z.string(),
  rewritten: z.array(
    z.object({
      entryName: z.string(),
      server: z.string(),
      /** Warden's own entry already, brought to the command this Warden starts. */
      updated: z.boolean().optional(),
    }),
  ),
  untouched: z.array(z.object({ entryName: z.string(), reason: z.string() })),
});
export type ConnectPreview = z.infer<typeof connectPreviewSchema>;

export const connectResultSchema = connectPreviewSchema.extend({
  /** The copy of the client's original file, kept until disconnect. */
  backup: z.string(),
  /** What the user should know about the write (a file's mode narrowed to keep a token private). */
  notes: z.array(z.string()).optional(),
});
export type ConnectResult = z.infer<typeof connectResultSchema>;

export const disconnectResultSchema = z.object({
  client: clientIdSchema,
  file: z.string(),
  /** backup: the original file restored byte for byte; entries: the original entries re-applied. */
  restored: z.enum(['backup', 'entries']),
  message: z.string(),
});
export type DisconnectResult = z.infer<typeof disconnectResultSchema>;

export const clientStatusSchema = z.object({
  client: clientIdSchema,
  label: z.string(),
  /** True when any of the client's config files or folders exists. */
  installed: z.boolean(),
  files: z.array(
    z.object({
      path: z.string(),
      scope: z.enum(['user', 'project', 'picked']),
      exists: z.boolean(),
      /** Why the file cannot be read, its path named. */
      error: z.string().optional(),
      /** The same without the path, worded to follow it ("is not a regular file"). */
      problem: z.string().optional(),
      /** What to do about it. */
      remedy: z.string().optional(),
      connected: z.boolean(),
      backup: z.string().optional(),
      /** The newest HTTP gateway token Warden wrote into this file, if any. */
      gatewayToken: z
        .object({
          state: z.enum(['active', 'revoked']),
          createdAt: z.string(),
          revokedWhy: z.string().optional(),
        })
        .optional(),
      servers: z.array(
        z.object({
          entryName: z.string(),
          kind: z.enum(['stdio', 'remote', 'warden', 'invalid']),
          /** The Warden server it goes through, when it does. */
          throughWarden: z.string().optional(),
          /**
           * Warden's entry as Warden wrote it, with an older start command than this Warden's
           * (connecting the file again updates it).
           */
          startCommandOutdated: z.literal(true).optional(),
        }),
      ),
    }),
  ),
});
export type ClientStatus = z.infer<typeof clientStatusSchema>;

export const tokenChangeSchema = z.object({
  client: z.string(),
  file: z.string(),
  message: z.string(),
});
export type TokenChange = z.infer<typeof tokenChangeSchema>;

/** Client operations that change state; spread into the contract's `commands`. */
export const clientCommands = {
  'clients.import': { input: importInputSchema, output: z.array(importResultSchema) },
  'clients.connect': { input: connectInputSchema, output: z.array(connectResultSchema) },
  'clients.disconnect': { input: clientFileInputSchema, output: z.array(disconnectResultSchema) },
  'clients.revokeToken': { input: clientFileInputSchema, output: z.array(tokenChangeSchema) },
} as const;

/** Client operations that only read; spread into the contract's `queries`. */
export const clientQueries = {
  'clients.list': {
    input: z.object({ workspace: workspaceSchema }).strict(),
    output: z.array(clientStatusSchema),
  },
  'clients.importPreview': { input: clientFileInputSchema, output: z.array(importPreviewSchema) },
  'clients.connectPreview': { input: connectInputSchema, output: z.array(connectPreviewSchema) },
} as const;

type In<S extends z.ZodType> = z.input<S>;

/**
 * The `clients.*` part of the contract client, as the import and clients screens use it; the
 * full contract client satisfies it once these operations are in the contract.
 */
export interface ClientsApi {
  'clients.list': (input: { workspace?: string }) => Promise<ClientStatus[]>;
  'clients.importPreview': (input: In<typeof clientFileInputSchema>) => Promise<ImportPreview[]>;
  'clients.import': (input: In<typeof importInputSchema>) => Promise<ImportResult[]>;
  'clients.connectPreview': (input: In<typeof connectInputSchema>) => Promise<ConnectPreview[]>;
  'clients.connect': (input: In<typeof connectInputSchema>) => Promise<ConnectResult[]>;
  'clients.disconnect': (input: In<typeof clientFileInputSchema>) => Promise<DisconnectResult[]>;
  'clients.revokeToken': (input: In<typeof clientFileInputSchema>) => Promise<TokenChange[]>;
}

/** The names of the `clients.*` operations. */
export type ClientOperationName = keyof typeof clientCommands | keyof typeof clientQueries;
