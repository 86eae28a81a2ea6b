/**
 * The one typed contract between the UI and the core: commands and queries that answer with a
 * promise, events from core to UI. Payloads are validated with these schemas where they enter
 * the core, because the renderer is untrusted.
 */
import { z } from 'zod';
import {
  auditPageSchema,
  auditQuerySchema,
  auditRowSchema,
  auditVerifyResultSchema,
} from '../audit/audit-row';
import { auditSettingsInputSchema, auditSettingsViewSchema } from './audit-settings';
import {
  checkRootsInputSchema,
  doctorReportSchema,
  rootCheckSchema,
  verificationSchema,
} from './doctor';
import { decideFolderInputSchema, pendingFolderGrantSchema } from './folder-grants';
import { decideGrantInputSchema, pendingGrantSchema } from './grants';
import { instanceRefSchema, instanceViewSchema } from './instances';
import {
  approvalDecisionInputSchema,
  driftDecisionInputSchema,
  pendingApprovalSchema,
  toolDriftSchema,
  toolForgetInputSchema,
  toolListingSchema,
} from './tools';
import {
  addServerInputSchema,
  configProblemSchema,
  serverRefSchema,
  serverViewSchema,
  setSecretInputSchema,
  updateServerInputSchema,
} from './servers';

import { effectivePolicyViewSchema, policyUpdateInputSchema, policyViewSchema } from './policy';

import { autostartCommands, autostartQueries } from './autostart';
import { clientCommands, clientQueries } from './clients';
import { gatewayQueries } from './gateway';
import { detailCommands, detailQueries } from './server-detail';
import { oauthCommands, oauthQueries } from './oauth';
import { secretsCommands, secretsQueries } from './secrets';
import { telemetryCommands, telemetryQueries } from './telemetry';

const empty = z.object({}).strict();

/** Operations that change state. */
export const commands = {
  'servers.add': { input: addServerInputSchema, output: serverViewSchema },
  'servers.update': { input: updateServerInputSchema, output: serverViewSchema },
  'servers.remove': { input: serverRefSchema, output: z.object({ removed: z.boolean() }) },
  'servers.acknowledge': { input: serverRefSchema, output: serverViewSchema },
  'servers.setSecret': { input: setSecretInputSchema, output: serverViewSchema },
  'instances.stop': { input: instanceRefSchema, output: z.object({ stopped: z.boolean() }) },
  'instances.restart': { input: instanceRefSchema, output: z.object({ restarted: z.boolean() }) },
  /** Starts an instance Warden holds itself (no AI client): proves it runs, lists its tools. */
  'instances.start': { input: serverRefSchema, output: instanceViewSchema },
  'approvals.decide': {
    input: approvalDecisionInputSchema,
    output: z.object({ decided: z.boolean() }),
  },
  'grants.decide': { input: decideGrantInputSchema, output: z.object({ decided: z.boolean() }) },
  /** A folder a client offered as a root, outside the policy: allowed (how) or denied. */
  'folders.decide': {
    input: decideFolderInputSchema,
    output: z.object({ decided: z.boolean() }),
  },
  'drift.decide': { input: driftDecisionInputSchema, output: z.object({ decided: z.boolean() }) },
  /** Forgets a tool's pinned definition (the next listing pins it anew); false: none was pinned. */
  'tools.forget': { input: toolForgetInputSchema, output: z.object({ forgotten: z.boolean() }) },
  'audit.verify': { input: empty, output: auditVerifyResultSchema },
  /** Saves the audit log's retention and applies it at once. */
  'audit.setSettings': { input: auditSettingsInputSchema, output: auditSettingsViewSchema },
  /** Runs real escape attempts inside the sandbox backend now, keeps and returns the result. */
  'host.verify': { input: empty, output: verificationSchema },
  /** Replaces the global part (the guards every server inherits). */
  'policy.update': { input: policyUpdateInputSchema, output: policyViewSchema },
  ...autostartCommands,
  ...telemetryCommands,
  ...secretsCommands,
  ...clientCommands,
  ...detailCommands,
  ...oauthCommands,
} as const;

/** Operations that only read. */
export const queries = {
  'servers.list': { input: empty, output: z.array(serverViewSchema) },
  'servers.get': { input: serverRefSchema, output: serverViewSchema },
  'config.problems': { input: empty, output: z.array(configProblemSchema) },
  'host.doctor': { input: empty, output: doctorReportSchema },
  /** Each root checked as the sandbox would at launch, so problems show while editing. */
  'host.checkRoots': { input: checkRootsInputSchema, output: z.array(rootCheckSchema) },
  'instances.list': { input: empty, output: z.array(instanceViewSchema) },
  'approvals.list': { input: empty, output: z.array(pendingApprovalSchema) },
  'grants.list': { input: empty, output: z.array(pendingGrantSchema) },
  'folders.list': { input: empty, output: z.array(pendingFolderGrantSchema) },
  'drift.list': { input: empty, output: z.array(toolDriftSchema) },
  'tools.listings': { input: empty, output: z.array(toolListingSchema) },
  'audit.query': { input: auditQuerySchema, output: auditPageSchema },
  'audit.settings': { input: empty, output: auditSettingsViewSchema },
  /** The global part, stored and applied, and the managed layer (or why it cannot be used). */
  'policy.get': { input: empty, output: policyViewSchema },
  /** What applies to one server after the managed layer and the guards, line by line. */
  'servers.effective': { input: serverRefSchema, output: effectivePolicyViewSchema },
  ...autostartQueries,
  ...secretsQueries,
  ...telemetryQueries,
  ...clientQueries,
  ...gatewayQueries,
  ...detailQueries,
  ...oauthQueries,
} as const;

/** Events pushed from the core to every connected UI. */
export const events = {
  'servers.changed': z.array(serverViewSchema),
  'config.problem': configProblemSchema,
  'instances.changed': z.array(instanceViewSchema),
  'approvals.changed': z.array(pendingApprovalSchema),
  'grants.changed': z.array(pendingGrantSchema),
  'folders.changed': z.array(pendingFolderGrantSchema),
  'drift.changed': z.array(toolDriftSchema),
  /** A server's whole tool listing was answered, leaving pinned tools out (or no longer). */
  'tools.listingsChanged': z.array(toolListingSchema),
  /** The global part changed (through any core, or config.json edited by hand). */
  'policy.changed': policyViewSchema,
  /** The audit log's settings changed (through any window, or config.json edited by hand). */
  'audit.settingsChanged': auditSettingsViewSchema,
  /** New audit rows, one batch per database write, oldest first. */
  'audit.batch': z.array(auditRowSchema),
} as const;

export const operations = { ...commands, ...queries };

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OperationInput<N extends OperationName> = z.input<Operations[N]['input']>;
export type OperationOutput<N extends OperationName> = z.output<Operations[N]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

/** The names of every operation, for transports that bind one function per operation. */
export const operationNames = Object.keys(operations) as OperationName[];

/** True when `name` is an operation of the contract (untrusted input from a transport). */
export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.hasOwn(operations, name);
}

/** True when `name` is an event of the contract. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(events, name);
}
