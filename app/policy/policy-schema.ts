/**
 * The server + policy model (docs/architecture.md, "The policy"). The UI edits exactly these
 * fields; the sandbox backends compile them; the config store persists them.
 */
import { RE2JS } from 're2js';
import { z } from 'zod';
import { type LimitName, limitNames } from './limit-names';
import { auditSettingsSchema } from '../audit/audit-settings';
import { telemetrySettingsSchema } from '../telemetry/telemetry-settings';
import { addressProblem, entryMessage, patternProblem } from './network-patterns';
import { guardsSchema, serverGuardsSchema } from './guards-schema';
import { argCheckProblem, argPathProblem, toolNameProblem } from './arg-rules';
import { urlDestination } from './url-destination';
import { callPatternProblem } from './call-patterns';
import { CONFIG_SCHEMA_VERSION } from './config-migrations';
import { setPatternEngine } from './pattern-engine';

// Wherever a policy is validated, its `match=` patterns are checked: the engine comes with the
// schema.
setPatternEngine(RE2JS);

/** Environment variable names as POSIX shells accept them. */
export const envNameSchema = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'must be a variable name: letters, digits and _, not starting with a digit',
  );

export const rootSchema = z.object({
  path: z
    .string()
    .min(1, 'must not be empty')
    .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), {
      message: 'must be an absolute path',
    })
    .refine((p) => !p.split(/[\\/]/).some((part) => part === '..' || part === '.'), {
      message: 'must not contain "." or ".." parts; write the folder\'s own path',
    }),
  access: z.enum(['read', 'write']),
});
export type Root = z.infer<typeof rootSchema>;

/** A string `problem` finds nothing wrong with; its answer is the field's message. */
function checkedString(problem: (text: string) => string | undefined) {
  return z.string().superRefine((text, ctx) => {
    const found = problem(text);
    if (found !== undefined) ctx.addIssue({ code: 'custom', message: entryMessage(text, found) });
  });
}

export const networkModeSchema = z.enum(['none', 'allowlist', 'ask']);
export type NetworkMode = z.infer<typeof networkModeSchema>;

export const networkSchema = z.object({
  mode: networkModeSchema,
  /** Destination patterns: `host`, `*.domain`, optional `:port`, IP literals, `[v6]`. */
  allow: z.array(checkedString(patternProblem)),
  /** Same patterns; deny wins over allow. */
  deny: z.array(checkedString(patternProblem)),
  /** Private, loopback or link-local addresses (or CIDR ranges) the server may reach anyway. */
  allowAddresses: z.array(checkedString(addressProblem)),
  /** Seconds an unknown destination is held in `ask` mode before it is refused. */
  askTimeoutSeconds: z.number().int().positive().max(3600),
  /**
   * Set only in an effective policy: the allowlists of the managed layer and the global part. A
   * destination outside any of them is refused, whatever the rules above or a grant say.
   */
  within: z
    .array(
      z.object({
        layer: z.enum(['managed', 'global']),
        allow: z.array(checkedString(patternProblem)),
      }),
    )
    .optional(),
});
export type NetworkPolicy = z.infer<typeof networkSchema>;

export const envValueSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plain'), value: z.string() }),
  /** A secret kept in the OS keychain (or the headless secret file), referenced by id. */
  z.object({ kind: z.literal('secret'), ref: z.string().min(1) }),
]);
export type EnvValue = z.infer<typeof envValueSchema>;

export const envSchema = z.object({
  /** Host variables passed through on top of the minimal base. */
  pass: z.array(envNameSchema),
  set: z.record(envNameSchema, envValueSchema),
});
export type EnvPolicy = z.infer<typeof envSchema>;

export { type LimitName, limitNames };

export const limitsSchema = z.object({
  memoryMb: z.number().int().positive().optional(),
  pids: z.number().int().positive().optional(),
  cpuSeconds: z.number().int().positive().optional(),
  openFiles: z.number().int().positive().optional(),
  wallSeconds: z.number().int().positive().optional(),
  /** Limits the user accepts as best-effort: launch even if the host cannot enforce them. */
  bestEffort: z.array(z.enum(limitNames)),
});
export type Limits = z.infer<typeof limitsSchema>;

export const toolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** A check on one argument of a tool call, made before the call reaches the server. */
export const argRuleSchema = z.object({
  tool: checkedString(toolNameProblem),
  arg: checkedString(argPathProblem),
  rule: checkedString(argCheckProblem),
});

/** A call that goes through without asking although its tool requires approval. */
export const callPatternSchema = z
  .object({ tool: z.string(), args: z.record(z.string(), z.string()) })
  .superRefine((p, ctx) => {
    const found = callPatternProblem(p);
    if (found !== undefined) ctx.addIssue({ code: 'custom', message: found });
  });

/** What the gateway does with credentials it finds in results (and the user's secrets in calls). */
export const credentialModeSchema = z.enum(['redact', 'block', 'ask', 'off']);
export type CredentialMode = z.infer<typeof credentialModeSchema>;

export const toolsPolicySchema = z.object({
  disabled: z.array(z.string()),
  approval: z.array(z.string()),
  /** Definitions pinned on first sight; a later change is drift and hides the tool. */
  pinned: z.record(z.string(), toolDefinitionSchema),
  approvalTimeoutSeconds: z.number().int().positive().max(3600),
  /** Argument rules; absent means none. */
  argRules: z.array(argRuleSchema).optional(),
  /** Credential scanning of results and arguments; absent means `redact`. */
  credentials: credentialModeSchema.optional(),
  /** Approvals remembered "always": calls matching one of these are not asked about. */
  allowedCalls: z.array(callPatternSchema).optional(),
});
export type ToolsPolicy = z.infer<typeof toolsPolicySchema>;

export const isolationSchema = z.enum(['sandbox', 'off']);
export type Isolation = z.infer<typeof isolationSchema>;

export const policySchema = z.object({
  isolation: isolationSchema,
  filesystem: z.object({ roots: z.array(rootSchema) }),
  network: networkSchema,
  env: envSchema,
  limits: limitsSchema,
  tools: toolsPolicySchema,
  /** Seconds without traffic after which an instance is stopped. */
  idleTimeoutSeconds: z.number().int().positive(),
  /** Paths this server hides beyond the inherited guards, and inherited ones it may see. */
  guards: serverGuardsSchema.optional(),
});
export type Policy = z.infer<typeof policySchema>;

/** A policy without the fields the gateway owns (pinned tool definitions): what a user edits. */
export const userPolicySchema = policySchema.extend({
  tools: toolsPolicySchema.omit({ pinned: true }),
});
export type UserPolicy = z.infer<typeof userPolicySchema>;

export const launchSchema = z.object({
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()),
  cwd: z.string().optional(),
});
export type LaunchSpec = z.infer<typeof launchSchema>;

/** How Warden speaks MCP to a remote server: Streamable HTTP, or the legacy HTTP+SSE transport. */
export const remoteTransportSchema = z.enum(['streamable-http', 'sse']);
export type RemoteTransport = z.infer<typeof remoteTransportSchema>;

/** An HTTP header name as RFC 9110 allows it (a token). */
export const headerNameSchema = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, 'must be a header name: letters, digits and -');

/**
 * A remote server: the URL Warden connects to (instead of launching a command), and the headers
 * it sends. A header's value lives in the secret store under `ref`, never in config.json.
 */
export const remoteSchema = z.object({
  url: checkedString((u) => {
    if (!/^https?:\/\//i.test(u)) return 'must be an http:// or https:// URL';
    const dest = urlDestination(u);
    return dest.ok ? undefined : dest.error;
  }),
  transport: remoteTransportSchema,
  headers: z.array(z.object({ name: headerNameSchema, ref: z.string().min(1) })),
  oauth: z
    .object({ scopes: z.array(z.string()).optional(), clientName: z.string().optional() })
    .optional(),
});
export type RemoteSpec = z.infer<typeof remoteSchema>;

export const serverNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

export const serverSchema = z
  .object({
    name: serverNameSchema,
    /** The command of a local server; absent for a remote one. */
    launch: launchSchema.optional(),
    /** The upstream of a remote server; absent for a local one. Exactly one of the two is set. */
    remote: remoteSchema.optional(),
    policy: policySchema,
    /** Increases on every change to the launch spec or policy. */
    revision: z.number().int().positive(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** False until the user has seen the full command and confirmed it may start. */
    acknowledged: z.boolean(),
  })
  .refine((s) => (s.launch === undefined) !== (s.remote === undefined), {
    message: 'a server has either a command (launch) or a URL (remote), not both or neither',
    path: ['launch'],
  });
export type Server = z.infer<typeof serverSchema>;

export { CONFIG_SCHEMA_VERSION };

export const configSchema = z.object({
  schemaVersion: z.literal(CONFIG_SCHEMA_VERSION),
  /** Audit log settings; absent means the defaults (an additive field: no migration needed). */
  audit: auditSettingsSchema.optional(),
  /** Guards every server inherits (the global part); absent means the defaults. */
  guards: guardsSchema.optional(),
  /** OpenTelemetry export of the audit log; absent means none (an additive field). */
  telemetry: telemetrySettingsSchema.optional(),
  servers: z.array(serverSchema),
});
export type Config = z.infer<typeof configSchema>;
