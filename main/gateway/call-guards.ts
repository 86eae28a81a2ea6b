/**
 * The checks the gateway makes on a tool call besides the tool policy: argument rules before the
 * call reaches the server, the user's secrets for other servers in the arguments (a secret sent
 * where it does not belong), credentials in the result before the client sees it, a form that
 * asks the user to type one, and a link for one the user cannot trust (see credential-prompt.ts).
 * Each refusal and each credential found is audited with the rule or the credential's kind, never
 * a secret value.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { canonicalJson } from '../../app/audit/canonical-json';
import type { AuditSecret } from '../../app/audit/redact';
import {
  type ArgVerdict,
  type PathFacts,
  checkArguments,
  compileArgRules,
} from '../../app/policy/arg-check';
import { argRuleText } from '../../app/policy/arg-rules';
import {
  loadPatternEngine,
  needsPatternEngine,
  patternEngine,
} from '../../app/policy/pattern-engine';
import type { GuardLayers } from '../../app/policy/managed-rules';
import type { CredentialMode, Policy } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import {
  type CredentialScanner,
  credentialScanner,
  describeHits,
  redactCredentialFormats,
} from '../../app/secrets/credential-scan';
import type { ApprovalInbox } from './approval-inbox';
import type { LayersNow } from './call-layers';
import { credentialPrompts, unsafeCredentialLink } from './credential-prompt';
import { argScopeCache, unusableLayers } from './call-scope';
import type { CallVerdict } from './relay';
import { recordedMethod, recordedTool, recordedValue } from './wire-values';

type Id = string | number;

/** What the credential scan says about a result: as it is, a redacted copy, or withheld. */
export type ResultVerdict =
  { kind: 'pass' } | { kind: 'replace'; result: unknown } | { kind: 'refuse'; message: string };

export interface CallGuardDeps {
  server: string;
  instance: string;
  /** The server's current policy (read on every call, so edits apply at once). */
  policy: () => Policy | undefined;
  paths: PathFacts;
  /** Every secret value Warden holds for the user (all servers' secrets). */
  secrets: () => readonly AuditSecret[];
  /** This server's own secrets: redacted from its results, but no exfiltration in its calls. */
  ownSecrets: () => readonly AuditSecret[];
  approvals: ApprovalInbox;
  audit: (event: AuditEventInput) => void;
  redact: (value: unknown) => unknown;
  /**
   * The managed and global layers: their network lists and hidden paths apply to the argument
   * rules as they apply to the sandbox. Without it, the server's policy with the default guards.
   */
  layers?: LayersNow;
  /** The user's home, for hidden paths written `~/…`. */
  home?: string;
}

export interface CallGuards {
  checkArgs(tool: string, args: unknown, id: Id): CallVerdict | Promise<CallVerdict>;
  checkResult(tool: string, result: unknown, id: Id): ResultVerdict;
  /**
   * A message the server sends on its own (a notification such as a log line or progress, or a
   * request to the client, `where` says which) as the client may see it: unchanged, redacted, or
   * (block) withheld.
   */
  checkNotice(message: ServerNotice, where?: 'notification' | 'request'): NoticeVerdict;
  /** Arguments as the approval card shows them: secrets and credentials replaced. */
  showArgs(args: unknown): unknown;
}

/** A message from the server that answers nothing: its method and parameters. */
export interface ServerNotice {
  method: string;
  params?: unknown;
}

/** What the credential scan says about a server's notice. */
export type NoticeVerdict =
  { kind: 'pass' } | { kind: 'replace'; params: unknown } | { kind: 'drop'; reason: string };

const PASS: ResultVerdict = { kind: 'pass' };
const NOTICE_PASS: NoticeVerdict = { kind: 'pass' };
const ALLOW: CallVerdict = { allow: true };

/** Caches what is compiled from a policy part, by the identity of that part. */
function cached<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const memo = new WeakMap<K, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) memo.set(key, (value = make(key)));
    return value;
  };
}

/** A scanner for the current secrets, compiled again only when they change. */
function scannerCache(
  secrets: () => readonly AuditSecret[],
  formats: boolean,
  allowed: () => readonly string[] = () => [],
): () => CredentialScanner | undefined {
  let key: string | undefined;
  let scanner: CredentialScanner | undefined;
  return () => {
    const current = secrets();
    const free = allowed();
    const next = [...current.map((s) => `${s.name}\u0000${s.value}`), '', ...free].join('\u0001');
    if (next !== key) {
      key = next;
      scanner = credentialScanner(current, { formats, allowed: free });
    }
    return scanner;
  };
}

/** Builds the guards of one instance. */
export function createCallGuards(d: CallGuardDeps): CallGuards {
  const rulesOf = cached((rules: NonNullable<Policy['tools']['argRules']>) =>
    compileArgRules(rules),
  );
  const hasPatterns = cached((rules: NonNullable<Policy['tools']['argRules']>) =>
    needsPatternEngine(rules.map((r) => r.rule)),
  );
  const scopeOf = argScopeCache(d.home);
  // A folder's real path is looked up once per policy revision: a folder swapped for a symlink
  // afterwards (by a server that can write next to it) does not move what the rule allows.
  const factsOf = cached((_policy: Policy): PathFacts => {
    const folders = new Map<string, Promise<readonly string[]>>();
    return {
      realPaths: (path) => d.paths.realPaths(path),
      folderPaths: (path) => {
        let found = folders.get(path);
        if (!found) {
          found = d.paths.folderPaths(path);
          folders.set(path, found);
          void found.catch(() => folders.delete(path));
        }
        return found;
      },
    };
  });
  const resultScanner = scannerCache(d.secrets, true);
  // A call may carry what its own server already holds; any other secret of the user's is leaving,
  // and a credential of a known format is asked about.
  const ownValues = () => d.ownSecrets().map((s) => s.value);
  const argScanner = scannerCache(
    () => {
      const own = new Set(ownValues());
      return d.secrets().filter((s) => !own.has(s.value));
    },
    true,
    ownValues,
  );
  /** Arguments as a person may see them: secrets and credentials of known formats replaced. */
  const shown = (args: unknown) => redactCredentialFormats(d.redact(args ?? {}));
  const found = (
    where: 'result' | 'arguments' | 'notification' | 'request',
    action: 'redacted' | 'blocked' | 'asked',
    tool: string | undefined,
    id: Id | undefined,
    hits: readonly { kind: string; name?: string; count: number }[],
    method?: string,
  ) =>
    d.audit({
      kind: 'credential.found',
      outcome: action === 'blocked' ? 'refused' : 'info',
      server: d.server,
      instance: d.instance,
      ...(id !== undefined ? { requestId: id } : {}),
      ...(tool !== undefined ? { tool: recordedTool(tool) } : {}),
      ...(method !== undefined ? { method: recordedMethod(method) } : {}),
      where,
      action,
      found: hits.map((h) => ({
        kind: h.kind,
        ...(h.name ? { name: h.name } : {}),
        count: h.count,
      })),
    });

  const afterRules = (
    policy: Policy,
    tool: string,
    args: unknown,
    id: Id,
    verdict: ArgVerdict,
  ): CallVerdict | Promise<CallVerdict> => {
    if (!verdict.ok) {
      const rule = argRuleText(verdict.refusal.rule);
      d.audit({
        kind: 'tool.arg-refused',
        outcome: 'refused',
        server: d.server,
        instance: d.instance,
        requestId: id,
        tool: recordedTool(tool),
        rule,
        reason: verdict.refusal.reason,
        args: recordedValue(d.redact(args ?? {})),
      });
      return {
        allow: false,
        message: `the call to "${recordedTool(tool)}" was refused by the argument rule ${rule}: ${verdict.refusal.reason}`,
      };
    }
    return checkSecretsInArgs(policy.tools.credentials ?? 'redact', tool, args, id);
  };

  const checkSecretsInArgs = (
    mode: CredentialMode,
    tool: string,
    args: unknown,
    id: Id,
  ): CallVerdict | Promise<CallVerdict> => {
    if (mode === 'off' || args === undefined) return ALLOW;
    const hits = argScanner()?.find(args) ?? [];
    if (hits.length === 0) return ALLOW;
    const what = describeHits(hits);
    // One of the user's secrets leaving for the wrong server is refused unless the policy asks; a
    // credential of a known format (maybe the user's own, pasted) is asked about unless it blocks.
    const secret = hits.some((h) => h.kind === 'secret');
    if (secret ? mode !== 'ask' : mode === 'block') {
      found('arguments', 'blocked', tool, id, hits);
      return {
        allow: false,
        message: secret
          ? `the call to "${recordedTool(tool)}" carries a secret Warden holds for you for another server (${what}) and was refused`
          : `the call to "${recordedTool(tool)}" carries credentials (${what}) and was refused by the server's credential policy`,
      };
    }
    found('arguments', 'asked', tool, id, hits);
    const policy = d.policy();
    return d.approvals
      .request({
        server: d.server,
        instance: d.instance,
        tool,
        args: shown(args),
        timeoutSeconds: policy?.tools.approvalTimeoutSeconds ?? 120,
        reason: {
          kind: 'credentials',
          secret,
          found: hits.map((h) => ({
            kind: h.kind,
            ...(h.name ? { name: h.name } : {}),
            count: h.count,
          })),
        },
        ...(canonicalJson(args) !== undefined ? { sent: canonicalJson(args) } : {}),
      })
      .then((approved) =>
        approved
          ? ALLOW
          : {
              allow: false,
              message: `the call to "${recordedTool(tool)}" carrying credentials was not approved`,
            },
      );
  };

  const guards: CallGuards = {
    checkArgs(tool, args, id) {
      const policy = d.policy();
      if (!policy) return ALLOW;
      const rules = policy.tools.argRules;
      if (!rules || rules.length === 0)
        return checkSecretsInArgs(policy.tools.credentials ?? 'redact', tool, args, id);
      // `match=` rules compile on the pattern engine, loaded the first time a policy has one.
      if (!patternEngine() && hasPatterns(rules))
        return loadPatternEngine().then(() => guards.checkArgs(tool, args, id));
      const withLayers = (layers: Result<GuardLayers, string> | undefined) => {
        const scope = layers?.ok === false ? layers : scopeOf(policy, layers?.value);
        const verdict: ArgVerdict | Promise<ArgVerdict> = scope.ok
          ? checkArguments(rulesOf(rules), tool, args, scope.value, factsOf(policy))
          : unusableLayers(rules, tool, scope.error);
        return verdict instanceof Promise
          ? verdict.then((v) => afterRules(policy, tool, args, id, v))
          : afterRules(policy, tool, args, id, verdict);
      };
      const layers = d.layers?.();
      return layers instanceof Promise ? layers.then(withLayers) : withLayers(layers);
    },

    showArgs: shown,

    checkNotice({ method, params }, where = 'notification') {
      const mode = d.policy()?.tools.credentials ?? 'redact';
      if (mode !== 'off' && where === 'request' && method === 'elicitation/create') {
        // A form asking the user for a credential cannot be made safe by redacting it: refused.
        const prompts = credentialPrompts(params);
        if (prompts.length > 0) {
          const hits = prompts.map((p) => ({ kind: 'credential-prompt', name: p.field, count: 1 }));
          found(where, 'blocked', undefined, undefined, hits, method);
          const asked = prompts.map((p) => `"${p.field}": ${p.asked}`).join(', ');
          return {
            kind: 'drop',
            reason: `asked the user to type a credential (${asked}) in a form, which MCP forbids,`,
          };
        }
        const unsafe = unsafeCredentialLink(params);
        if (unsafe) {
          found(
            where,
            'blocked',
            undefined,
            undefined,
            [{ kind: 'credential-link', count: 1 }],
            method,
          );
          return { kind: 'drop', reason: `would send the user to ${unsafe},` };
        }
      }
      const scanner = resultScanner();
      if (mode === 'off' || !scanner || params === undefined) return NOTICE_PASS;
      if (mode === 'redact') {
        const { value, hits } = scanner.redact(params);
        if (hits.length === 0) return NOTICE_PASS;
        found(where, 'redacted', undefined, undefined, hits, method);
        return { kind: 'replace', params: value };
      }
      // `block` and `ask` (nobody can be asked about a message already on its way): withheld.
      const hits = scanner.find(params);
      if (hits.length === 0) return NOTICE_PASS;
      found(where, 'blocked', undefined, undefined, hits, method);
      return { kind: 'drop', reason: `held credentials (${describeHits(hits)})` };
    },

    checkResult(tool, result, id) {
      const mode = d.policy()?.tools.credentials ?? 'redact';
      if (mode === 'off') return PASS;
      const scanner = resultScanner();
      if (!scanner) return PASS;
      if (mode === 'redact') {
        const { value, hits } = scanner.redact(result);
        if (hits.length === 0) return PASS;
        found('result', 'redacted', tool, id, hits);
        return { kind: 'replace', result: value };
      }
      // `block`, and `ask`: a result cannot wait for a decision without holding up the session.
      const hits = scanner.find(result);
      if (hits.length === 0) return PASS;
      found('result', 'blocked', tool, id, hits);
      return {
        kind: 'refuse',
        message: `the result of "${recordedTool(tool)}" held credentials (${describeHits(hits)}) and was withheld by the server's credential policy`,
      };
    },
  };
  return guards;
}
