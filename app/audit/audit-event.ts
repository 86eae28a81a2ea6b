/**
 * Audit events: what the core records about every launch, call, network decision, grant and
 * policy change. Plain data, a tagged union on `kind`, so that the store, the CLI and the UI share
 * one shape. Payloads (tool arguments, command lines) are redacted before they are stored.
 */
import { z } from 'zod';
import { folderOutcomeSchema } from '../contract/folder-grants';
import { grantDecisionSchema } from '../contract/grants';
import { common, count, jsonRpcId } from './audit-event-common';
import {
  auditAnchorEventSchema,
  auditPrunedEventSchema,
  auditSummaryEventSchema,
  auditTruncatedEventSchema,
  coreErrorEventSchema,
} from './audit-log-events';

export {
  type AuditOutcome,
  type AuditRepeat,
  auditOutcomeSchema,
  auditRepeatSchema,
} from './audit-event-common';
export * from './audit-log-events';

/** The policy an instance actually launched with, as a reviewer needs it (no secret values). */
export const launchPolicySummarySchema = z.object({
  isolation: z.enum(['sandbox', 'off']),
  roots: z.array(z.object({ path: z.string(), access: z.enum(['read', 'write']) })),
  network: z.object({
    mode: z.enum(['none', 'allowlist', 'ask']),
    allow: z.array(z.string()),
    deny: z.array(z.string()),
  }),
  /** Names only: host variables passed through and variables set (values never recorded). */
  envPass: z.array(z.string()),
  envSet: z.array(z.string()),
  limits: z.record(z.string(), z.number()),
  /** Declared limits the host could not enforce (accepted as best-effort). */
  limitsNotEnforced: z.array(z.string()),
});
export type LaunchPolicySummary = z.infer<typeof launchPolicySummarySchema>;

export const instanceLifecycleEventSchema = z.object({
  ...common,
  kind: z.literal('instance.lifecycle'),
  /** The state entered, as the supervisor names it (`starting`, `running`, `exited`, …). */
  state: z.string().min(1),
  previous: z.string().optional(),
  reason: z.string().optional(),
  pid: z.number().int().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
});

export const sandboxLaunchEventSchema = z.object({
  ...common,
  kind: z.literal('sandbox.launch'),
  backend: z.string(),
  /** The policy revision the instance runs with. */
  revision: z.number().int().nonnegative(),
  policy: launchPolicySummarySchema,
  /** The server's command line (redacted like every payload). */
  command: z.array(z.string()).optional(),
  /**
   * Workspace files found in its writable folders and kept read-only (the first 32, each cut to
   * its end), and how many there were: what a write refused there comes from.
   */
  workspaceKept: z.array(z.string()).optional(),
  workspaceKeptCount: count.optional(),
  /**
   * Folders of its writable roots that take no new entry (Landlock, on the way to a path kept
   * read-only or hidden), listed and counted the same way: what a create refused there comes from.
   */
  closedFolders: z.array(z.string()).optional(),
  closedFoldersCount: count.optional(),
});

export const networkDecisionEventSchema = z.object({
  ...common,
  kind: z.literal('network.decision'),
  server: z.string().min(1),
  instance: z.string().min(1),
  host: z.string(),
  port: z.number().int().min(0).max(65535),
  resolvedAddress: z.string().optional(),
  decision: z.enum(['allow', 'deny']),
  by: z.enum(['rule', 'grant', 'default', 'timeout']),
  /** The allow/deny pattern that decided, when `by` is `rule`. */
  rule: z.string().optional(),
  reason: z.string().optional(),
  bytesUp: count,
  bytesDown: count,
  durationMs: z.number().nonnegative(),
});

export const grantRequestedEventSchema = z.object({
  ...common,
  kind: z.literal('grant.requested'),
  grantId: z.string(),
  host: z.string(),
  port: z.number().int().min(0).max(65535),
  timeoutSeconds: z.number().int().positive().optional(),
});

export const grantDecidedEventSchema = z.object({
  ...common,
  kind: z.literal('grant.decided'),
  grantId: z.string(),
  host: z.string(),
  port: z.number().int().min(0).max(65535),
  decision: grantDecisionSchema,
  by: z.enum(['user', 'timeout', 'policy']),
});

export const mcpRequestEventSchema = z.object({
  ...common,
  kind: z.literal('mcp.request'),
  requestId: jsonRpcId,
  method: z.string(),
  tool: z.string().optional(),
  /** Tool arguments or request params, redacted. */
  args: z.unknown().optional(),
  sizeBytes: count,
  client: z.string().optional(),
});

export const mcpResponseEventSchema = z.object({
  ...common,
  kind: z.literal('mcp.response'),
  requestId: jsonRpcId,
  method: z.string(),
  tool: z.string().optional(),
  /** A short description of the result (e.g. "3 content blocks, 1.2 kB"), redacted. */
  resultSummary: z.string().optional(),
  durationMs: z.number().nonnegative(),
  sizeBytes: count,
  error: z.object({ code: z.number().int(), message: z.string() }).optional(),
});

/**
 * A call recorded in one row: its request and the answer to it, written when the answer came
 * soon after the request and nothing else was recorded in between (main/audit/held-requests.ts).
 * Otherwise the two are an `mcp.request` and an `mcp.response` row. `ts` is the answer's time;
 * `durationMs` says how long before it the request came.
 */
export const mcpCallEventSchema = mcpResponseEventSchema.extend({
  kind: z.literal('mcp.call'),
  /** Tool arguments, redacted. */
  args: z.unknown().optional(),
  client: z.string().optional(),
  /** The request's size (`sizeBytes` is the answer's). */
  requestBytes: count,
});

export const toolDriftEventSchema = z.object({
  ...common,
  kind: z.literal('tool.drift'),
  tool: z.string(),
  change: z.enum(['changed', 'added', 'removed']),
  /** Which parts of the definition differ from the pinned one (`description`, `inputSchema`, …). */
  fields: z.array(z.string()),
  /** What the gateway did about it (`hidden`, `allowed`, …). */
  action: z.string().optional(),
});

export const policyChangedEventSchema = z.object({
  ...common,
  kind: z.literal('policy.changed'),
  /** 0 when the server was just created. */
  revisionBefore: z.number().int().nonnegative(),
  revisionAfter: z.number().int().nonnegative(),
  /** Field paths that changed, e.g. `policy.network.allow`, `launch.args`. */
  changed: z.array(z.string()),
  /**
   * `file`: made to config.json outside Warden (an editor, a script) and taken in by a running
   * core; absent for a change made through Warden (the panel, the command line).
   */
  via: z.literal('file').optional(),
});

export const limitHitEventSchema = z.object({
  ...common,
  kind: z.literal('limit.hit'),
  /**
   * A limit name from the policy (`memoryMb`, `wallSeconds`, …), `idleTimeoutSeconds`, or a rule
   * on a session's messages (`messageBytes`; `requestId`, a request refused for its id).
   */
  limit: z.string(),
  value: z.number().optional(),
  detail: z.string().optional(),
});

export const approvalRequestedEventSchema = z.object({
  ...common,
  kind: z.literal('approval.requested'),
  approvalId: z.string(),
  tool: z.string(),
  args: z.unknown().optional(),
  timeoutSeconds: z.number().int().positive().optional(),
  /** Why it asks: `tool-approval`, or `credentials` (the kinds found ride in `found`). */
  reason: z.string().optional(),
  found: z
    .array(z.object({ kind: z.string(), name: z.string().optional(), count: z.number() }))
    .optional(),
});

export const approvalDecidedEventSchema = z.object({
  ...common,
  kind: z.literal('approval.decided'),
  approvalId: z.string(),
  tool: z.string(),
  decision: z.enum(['approve', 'deny']),
  /**
   * `session` and `policy`: a call matched an approval remembered earlier and was not asked;
   * `ended`: the instance stopped while the call waited, so it was refused.
   */
  by: z.enum(['user', 'timeout', 'session', 'policy', 'ended']),
  /** What the user chose to remember with this approval. */
  remember: z.enum(['session', 'always']).optional(),
  /** For `always`: the saved argument patterns (TOOL and ARG=RULE pairs). */
  pattern: z.string().optional(),
});

/** A tool call refused by an argument rule before it reached the server. */
export const toolArgRefusedEventSchema = z.object({
  ...common,
  kind: z.literal('tool.arg-refused'),
  requestId: jsonRpcId,
  tool: z.string(),
  /** The rule as the CLI writes it: TOOL:ARG:RULE. */
  rule: z.string(),
  reason: z.string(),
  /** The call's arguments, redacted. */
  args: z.unknown().optional(),
});

/**
 * Credentials found in a call's result or arguments, or in what the server sends on its own (a
 * notification, or a request to the client such as `sampling/createMessage`): their kinds and
 * counts, never values.
 */
export const credentialFoundEventSchema = z.object({
  ...common,
  kind: z.literal('credential.found'),
  /** Absent for a notification or a request from the server. */
  requestId: jsonRpcId.optional(),
  tool: z.string().optional(),
  where: z.enum(['result', 'arguments', 'notification', 'request']),
  /** For a notification or a request from the server: its method. */
  method: z.string().optional(),
  /**
   * Replaced for the client; the result, call or server's request refused (a notification:
   * withheld); or the call held for approval.
   */
  action: z.enum(['redacted', 'blocked', 'asked']),
  found: z.array(
    z.object({
      kind: z.string(),
      /**
       * For one of the user's own secrets: the variable that holds it. For a form that asked the
       * user to type a credential (kind `credential-prompt`): the field. A URL mode request whose
       * address was refused has kind `credential-link` and no name.
       */
      name: z.string().optional(),
      count: z.number().int().positive(),
    }),
  ),
});

/**
 * What a server was told when it asked for the client's roots: the folders offered (real paths
 * inside its policy) and the client's roots left out, each with why.
 */
export const rootsAnsweredEventSchema = z.object({
  ...common,
  kind: z.literal('roots.answered'),
  requestId: jsonRpcId,
  offered: z.array(z.string()),
  leftOut: z.array(z.object({ uri: z.string(), reason: z.string() })),
});

/**
 * A request a server sent to the client (`sampling/createMessage` asks the client's model,
 * `elicitation/create` asks the user): passed on as the client may see it, or refused with the
 * reason. The `roots/list` request has a row of its own (`roots.answered`).
 */
export const mcpServerRequestEventSchema = z.object({
  ...common,
  kind: z.literal('mcp.server-request'),
  requestId: jsonRpcId,
  method: z.string(),
  /** The request's params, redacted. */
  params: z.unknown().optional(),
  sizeBytes: count,
  /** Why it was refused. */
  reason: z.string().optional(),
});

/**
 * The client's answer to a request of the server's (`mcp.server-request`): what kind of answer,
 * never what the user typed or the model wrote (a form's field names, a text's length), since a
 * server that asks may be fishing for exactly that.
 */
export const mcpClientAnswerEventSchema = z.object({
  ...common,
  kind: z.literal('mcp.client-answer'),
  requestId: jsonRpcId,
  /** The method of the server's request. */
  method: z.string(),
  /** E.g. "accept: fields name, email" or "text of 1,204 characters from model m". */
  resultSummary: z.string().optional(),
  error: z.object({ code: z.number().int(), message: z.string() }).optional(),
  /** From the request passed on to the answer. */
  durationMs: z.number().nonnegative(),
  sizeBytes: count,
});

/** A client root outside the policy, put to the user as a folder grant. */
export const folderRequestedEventSchema = grantRequestedEventSchema
  .omit({ host: true, port: true })
  .extend({ kind: z.literal('folder.requested'), path: z.string() });

/** How a folder grant ended; an "always" one is followed by its `policy.changed` event. */
export const folderDecidedEventSchema = grantDecidedEventSchema
  .omit({ host: true, port: true })
  .extend({
    kind: z.literal('folder.decided'),
    path: z.string(),
    decision: folderOutcomeSchema,
    by: z.enum(['user', 'timeout', 'policy', 'session']),
    reason: z.string().optional(),
  });

export const sandboxViolationEventSchema = z.object({
  ...common,
  kind: z.literal('sandbox.violation'),
  /** The backend that refused it (the unified log of macOS Seatbelt reports these). */
  backend: z.string(),
  /** The refused operation, e.g. `file-read-data`, `network-outbound`. */
  operation: z.string(),
  target: z.string().optional(),
  process: z.string().optional(),
  pid: z.number().int().optional(),
  /** What Warden did about it (a workspace file moved aside). */
  detail: z.string().optional(),
});

/** Any audit event. */
export const auditEventSchema = z.discriminatedUnion('kind', [
  instanceLifecycleEventSchema,
  sandboxLaunchEventSchema,
  networkDecisionEventSchema,
  grantRequestedEventSchema,
  grantDecidedEventSchema,
  mcpRequestEventSchema,
  mcpResponseEventSchema,
  mcpCallEventSchema,
  toolDriftEventSchema,
  policyChangedEventSchema,
  limitHitEventSchema,
  approvalRequestedEventSchema,
  approvalDecidedEventSchema,
  sandboxViolationEventSchema,
  auditSummaryEventSchema,
  auditAnchorEventSchema,
  auditPrunedEventSchema,
  auditTruncatedEventSchema,
  coreErrorEventSchema,
  toolArgRefusedEventSchema,
  credentialFoundEventSchema,
  rootsAnsweredEventSchema,
  folderRequestedEventSchema,
  folderDecidedEventSchema,
  mcpServerRequestEventSchema,
  mcpClientAnswerEventSchema,
]);
export type AuditEvent = z.infer<typeof auditEventSchema>;
export type AuditKind = AuditEvent['kind'];
/** The event of one kind, e.g. `AuditEventOf<'network.decision'>`. */
export type AuditEventOf<K extends AuditKind> = Extract<AuditEvent, { kind: K }>;

/** Every kind, in a stable order (for filters and menus). */
export const auditKinds: AuditKind[] = auditEventSchema.options.map((o) => o.shape.kind.value);
export const auditKindSchema = z.enum(auditKinds as [AuditKind, ...AuditKind[]]);

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What producers hand to the store: an event whose `ts` the store fills in when absent. */
export type AuditEventInput = DistributiveOmit<AuditEvent, 'ts'> & { ts?: string };

/** True when `kind` names an audit event kind (untrusted input, e.g. a CLI flag). */
export function isAuditKind(kind: unknown): kind is AuditKind {
  return typeof kind === 'string' && (auditKinds as string[]).includes(kind);
}
