/**
 * The events the audit log records about itself and the core: rows counted instead of written
 * past an instance's budget, the boundary retention leaves, rows found cut from the end, and an
 * error that escaped every session's handling.
 */
import { z } from 'zod';
import { auditOutcomeSchema, common, count } from './audit-event-common';

/**
 * Events of one instance beyond its rate budget, counted instead of written one by one: the
 * first `groups` by what they were (kind, outcome, subject such as `deny evil.test:443`), and
 * the count of the rest.
 */
export const auditSummaryEventSchema = z.object({
  ...common,
  kind: z.literal('audit.summary'),
  reason: z.literal('rate-budget'),
  count: z.number().int().positive(),
  firstTs: z.string(),
  lastTs: z.string(),
  groups: z.array(
    z.object({ kind: z.string(), outcome: auditOutcomeSchema, subject: z.string(), count }),
  ),
  otherCount: count,
  /** The budget that was spent: rows per instance per `seconds`. */
  budget: z.object({ rows: count, seconds: z.number().positive() }),
});

/**
 * The first row of a log whose older rows were removed by retention. It is not hashed like the
 * others: its `hash` is that of the last removed row (`throughId`), so the rows after it still
 * verify, and an `audit.pruned` row in the chain records the same boundary.
 */
export const auditAnchorEventSchema = z.object({
  ...common,
  kind: z.literal('audit.anchor'),
  throughId: z.number().int().positive(),
  throughTs: z.string(),
  /** Rows removed since the log began, over every pruning. */
  prunedRows: count,
});

/** Retention removed rows up to `throughId` (whose hash was `throughHash`), and why. */
export const auditPrunedEventSchema = z.object({
  ...common,
  kind: z.literal('audit.pruned'),
  throughId: z.number().int().positive(),
  throughHash: z.string(),
  throughTs: z.string(),
  prunedRows: count,
  reason: z.enum(['max-age', 'max-size']),
  maxAgeDays: z.number().nonnegative().optional(),
  maxSizeMb: z.number().nonnegative().optional(),
});

/**
 * Written when the log is opened and its newest rows are gone: the row the recorded head names
 * (kept beside the config, outside the log) is missing or different.
 */
export const auditTruncatedEventSchema = z.object({
  ...common,
  kind: z.literal('audit.truncated'),
  recordedId: z.number().int().positive(),
  recordedHash: z.string(),
  recordedTs: z.string(),
  /** The last row found when the log was opened. */
  lastId: count,
  missing: count,
  reason: z.string(),
});

/** An error that escaped every session's own handling; the core logged it and went on. */
export const coreErrorEventSchema = z.object({
  ...common,
  kind: z.literal('core.error'),
  source: z.enum(['uncaughtException', 'unhandledRejection', 'session']),
  message: z.string(),
  /** The first lines of the stack, when there was one. */
  stack: z.string().optional(),
});
