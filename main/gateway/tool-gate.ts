/**
 * The tool policy of one server as the relay applies it: disabled tools vanish from `tools/list`
 * and are refused on `tools/call`; definitions are pinned on first sight and a changed one
 * ("drift") is hidden until the user accepts it; some tools wait for the user's approval.
 */
import { randomUUID } from 'node:crypto';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { canonicalJson } from '../../app/audit/canonical-json';
import {
  type CompiledCallPattern,
  compileCallPattern,
  matchesCallPattern,
  suggestCallPattern,
} from '../../app/policy/call-patterns';
import {
  loadPatternEngine,
  needsPatternEngine,
  patternEngine,
} from '../../app/policy/pattern-engine';
import type { ToolDefinition, ToolsPolicy } from '../../app/policy/policy-schema';
import type { ApprovalInbox } from './approval-inbox';
import type { CallGuards } from './call-guards';
import { type DriftRegistry, driftFields } from './tool-drift';
import type { ToolListings } from './tool-listings';
import type { CallVerdict, ServerRequest, ServerRequestVerdict, ToolGate } from './relay';
import { type PinsUsed, pinRefusal, pinsUsed } from './pin-budget';
import { cut, recordedMethod, recordedTool } from './wire-values';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The parts of a tool listing that are pinned. */
export function toolDefinition(tool: unknown): ToolDefinition | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const t = tool as Record<string, unknown>;
  if (typeof t.name !== 'string') return undefined;
  return {
    name: t.name,
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    ...(t.inputSchema !== undefined ? { inputSchema: t.inputSchema } : {}),
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
  };
}

export interface ToolGateDeps {
  server: string;
  instance: string;
  /** The server's current tool policy (read on every use, so edits apply at once). */
  policy: () => ToolsPolicy;
  /** Persists newly pinned definitions into the server's policy. */
  pin: (definitions: Record<string, ToolDefinition>) => Promise<void>;
  drift: DriftRegistry;
  /** Where a whole listing's pinned tools left out are told (tool-listings.ts). */
  listings?: ToolListings;
  approvals: ApprovalInbox;
  audit: (event: AuditEventInput) => void;
  redact: (value: unknown) => unknown;
  /** Argument rules and credential scanning (see call-guards.ts). */
  guards?: CallGuards;
}

/** Runs `next` once `verdict` allows the call; a refusal stands as it is. */
function andThen(
  verdict: CallVerdict | Promise<CallVerdict>,
  next: () => CallVerdict | Promise<CallVerdict>,
): CallVerdict | Promise<CallVerdict> {
  if (verdict instanceof Promise) return verdict.then((v) => (v.allow ? next() : v));
  return verdict.allow ? next() : verdict;
}

/** The allowed-call patterns of a policy, compiled once per revision (a broken one is skipped). */
const allowedOf = (() => {
  const memo = new WeakMap<NonNullable<ToolsPolicy['allowedCalls']>, CompiledCallPattern[]>();
  return (list: NonNullable<ToolsPolicy['allowedCalls']>) => {
    let compiled = memo.get(list);
    if (!compiled) {
      compiled = list.flatMap((p) => {
        const c = compileCallPattern(p);
        return c.ok ? [c.value] : [];
      });
      memo.set(list, compiled);
    }
    return compiled;
  };
})();

/**
 * A notification as the client may see it (credentials redacted, or withheld under `block`);
 * other messages the server sends pass as they are (its requests: see `requestAsShown`).
 */
function noticeAsShown(guards: CallGuards, message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!('method' in message) || ('id' in message && message.id !== undefined)) return message;
  const verdict = guards.checkNotice({
    method: message.method,
    ...('params' in message ? { params: message.params } : {}),
  });
  if (verdict.kind === 'pass') return message;
  if (verdict.kind === 'drop') return undefined;
  return { ...message, params: verdict.params } as JSONRPCMessage;
}

/**
 * A request from the server to the client as the client may see it: credentials redacted or,
 * under `block` and `ask`, the request refused. A sampling request carries what the server wants
 * a model to read, so a credential in it would leave as surely as in a tool's result.
 */
function requestAsShown(guards: CallGuards, message: ServerRequest): ServerRequestVerdict {
  const verdict = guards.checkNotice(
    { method: message.method, ...(message.params !== undefined ? { params: message.params } : {}) },
    'request',
  );
  if (verdict.kind === 'pass') return { kind: 'pass', message };
  if (verdict.kind === 'replace')
    return { kind: 'pass', message: { ...message, params: verdict.params } as JSONRPCMessage };
  return {
    kind: 'refuse',
    message: `the ${recordedMethod(message.method)} request ${verdict.reason} and was not passed to the client`,
  };
}

/** The one row a listing's tools past the pin budget make (pin-budget.ts). */
function unpinnedRecord(
  d: Pick<ToolGateDeps, 'server' | 'instance'>,
  unpinned: readonly { name: string; why: string }[],
): AuditEventInput {
  const first = unpinned[0]!;
  const names = unpinned.slice(0, 5).map((u) => JSON.stringify(cut(u.name, 64)));
  const more = unpinned.length > 5 ? ` and ${unpinned.length - 5} more` : '';
  return {
    kind: 'limit.hit',
    outcome: 'refused',
    server: d.server,
    instance: d.instance,
    limit: 'pinnedTools',
    value: unpinned.length,
    detail: `not pinned and not shown to the client: ${names.join(', ')}${more} (the first: ${first.why})`,
  };
}

/** Builds the gate for one instance. */
export function createToolGate(d: ToolGateDeps): ToolGate {
  const guards = d.guards;
  return {
    async filterList(tools, whole) {
      const policy = d.policy();
      const visible: unknown[] = [];
      const newPins: Record<string, ToolDefinition> = {};
      const named = new Set<string>();
      // Counted only when a listing brings a tool not pinned yet.
      let used: PinsUsed | undefined;
      const unpinned: { name: string; why: string }[] = [];
      for (const tool of tools) {
        const def = toolDefinition(tool);
        // A name listed twice would show two tools and pin one of them; a tool named `__proto__`
        // cannot be kept as a key of the pins. Neither reaches the client.
        if (!def || named.has(def.name) || def.name === '__proto__') continue;
        named.add(def.name);
        if (policy.disabled.includes(def.name)) continue;
        // Own keys only: `constructor` is a tool's name here, not the object's.
        const pinned = Object.hasOwn(policy.pinned, def.name) ? policy.pinned[def.name] : undefined;
        if (!pinned) {
          const why = pinRefusal(def, (used ??= pinsUsed(policy.pinned)));
          if (why) unpinned.push({ name: def.name, why });
          else {
            newPins[def.name] = def;
            visible.push(tool);
          }
          continue;
        }
        const fields = driftFields(pinned, def);
        if (fields.length === 0) {
          d.drift.delete(d.server, def.name);
          visible.push(tool);
          continue;
        }
        const known = d.drift.get(d.server, def.name);
        if (!known || canonicalJson(known.current) !== canonicalJson(def)) {
          d.drift.set({
            server: d.server,
            tool: def.name,
            pinned,
            current: def,
            fields,
            seenAt: new Date().toISOString(),
          });
          d.audit({
            kind: 'tool.drift',
            outcome: 'refused',
            server: d.server,
            instance: d.instance,
            tool: def.name,
            change: 'changed',
            fields,
            action: 'hidden',
          });
        }
      }
      if (whole && d.listings) {
        const unlisted = Object.keys(policy.pinned).filter((name) => !named.has(name));
        d.listings.seen(d.server, unlisted);
      }
      if (unpinned.length > 0) d.audit(unpinnedRecord(d, unpinned));
      if (Object.keys(newPins).length > 0) await d.pin(newPins);
      return visible;
    },

    checkCall(tool, args, requestId): CallVerdict | Promise<CallVerdict> {
      const policy = d.policy();
      if (policy.disabled.includes(tool))
        return {
          allow: false,
          message: `the tool "${recordedTool(tool)}" is disabled by this server's policy`,
        };
      if (d.drift.get(d.server, tool)) {
        return {
          allow: false,
          message: `the tool "${recordedTool(tool)}" changed its definition since it was pinned; review the change in Warden before using it`,
        };
      }
      const guarded: CallVerdict | Promise<CallVerdict> = guards
        ? guards.checkArgs(tool, args, requestId)
        : { allow: true };
      if (!policy.approval.includes(tool)) return guarded;
      return andThen(guarded, () => approve(tool, args, policy));
    },

    ...(guards
      ? {
          checkResult: (tool: string, result: unknown, requestId: string | number) =>
            guards.checkResult(tool, result, requestId),
          checkNotice: (message: JSONRPCMessage) => noticeAsShown(guards, message),
          checkServerRequest: (message: ServerRequest) => requestAsShown(guards, message),
        }
      : {}),
  };

  function approve(
    tool: string,
    args: unknown,
    policy: ToolsPolicy,
  ): CallVerdict | Promise<CallVerdict> {
    const allowed = policy.allowedCalls;
    if (
      allowed?.length &&
      !patternEngine() &&
      needsPatternEngine(allowed.flatMap((p) => Object.values(p.args)))
    )
      return loadPatternEngine().then(() => approve(tool, args, policy));
    if (allowed?.length && allowedOf(allowed).some((p) => matchesCallPattern(p, tool, args))) {
      d.audit({
        kind: 'approval.decided',
        outcome: 'ok',
        server: d.server,
        instance: d.instance,
        approvalId: randomUUID(),
        tool,
        decision: 'approve',
        by: 'policy',
      });
      return { allow: true };
    }
    const shown = guards ? guards.showArgs(args) : d.redact(args ?? {});
    const sent = canonicalJson(args ?? {});
    // "Always" is offered only where the card shows every value the pattern would hold.
    const pattern = sent === canonicalJson(shown) ? suggestCallPattern(tool, args) : undefined;
    return d.approvals
      .request({
        server: d.server,
        instance: d.instance,
        tool,
        args: shown,
        timeoutSeconds: policy.approvalTimeoutSeconds,
        reason: { kind: 'tool-approval' },
        ...(sent !== undefined ? { sent } : {}),
        ...(pattern ? { pattern: pattern.args } : {}),
      })
      .then((approved): CallVerdict =>
        approved
          ? { allow: true }
          : { allow: false, message: `the call to "${recordedTool(tool)}" was not approved` },
      );
  }
}
