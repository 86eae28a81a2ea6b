/**
 * The checks the gateway makes on a tool call besides the tool policy: argument rules before the
 * call reaches the server, the user's secrets for other servers in the arguments (a secret sent
 * where it does not belong),
 * and credentials in the result before the client sees it. Each refusal and each credential found
 * is audited with the rule or the credential's kind, never a secret value.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { AuditSecret } from '../../app/audit/redact';
import {
  type ArgScope,
  type ArgVerdict,
  type PathFacts,
  checkArguments,
  compileArgRules,
} from '../../app/policy/arg-check';
import { argRuleText } from '../../app/policy/arg-rules';
import { compileRules } from '../../app/policy/network-patterns';
import type { CredentialMode, Policy } from '../../app/policy/policy-schema';
import {
  type CredentialHit,
  type CredentialScanner,
  credentialScanner,
  describeHits,
} from '../../app/secrets/credential-scan';
import type { ApprovalInbox } from './approval-inbox';
import type { CallVerdict } from './relay';

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
}

export interface CallGuards {
  checkArgs(tool: string, args: unknown, id: Id): CallVerdict | Promise<CallVerdict>;
  checkResult(tool: string, result: unknown, id: Id): ResultVerdict;
}

const PASS: ResultVerdict = { kind: 'pass' };
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
): () => CredentialScanner | undefined {
  let key: string | undefined;
  let scanner: CredentialScanner | undefined;
  return () => {
    const current = secrets();
    const next = current.map((s) => `${s.name}\u0000${s.value}`).join('\u0001');
    if (next !== key) {
      key = next;
      scanner = credentialScanner(current, { formats });
    }
    return scanner;
  };
}

/** Builds the guards of one instance. */
export function createCallGuards(d: CallGuardDeps): CallGuards {
  const rulesOf = cached((rules: NonNullable<Policy['tools']['argRules']>) =>
    compileArgRules(rules),
  );
  const networkOf = cached((network: Policy['network']) => {
    const rules = compileRules(network);
    return rules.ok ? rules.value : undefined;
  });
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
  // A call may carry what its own server already holds; any other secret of the user's is leaving.
  const argScanner = scannerCache(() => {
    const own = new Set(d.ownSecrets().map((s) => s.value));
    return d.secrets().filter((s) => !own.has(s.value));
  }, false);
  const found = (
    where: 'result' | 'arguments',
    action: 'redacted' | 'blocked' | 'asked',
    tool: string,
    id: Id,
    hits: CredentialHit[],
  ) =>
    d.audit({
      kind: 'credential.found',
      outcome: action === 'blocked' ? 'refused' : 'info',
      server: d.server,
      instance: d.instance,
      requestId: id,
      tool,
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
        tool,
        rule,
        reason: verdict.refusal.reason,
        args: d.redact(args ?? {}),
      });
      return {
        allow: false,
        message: `the call to "${tool}" was refused by the argument rule ${rule}: ${verdict.refusal.reason}`,
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
    if (mode !== 'ask') {
      found('arguments', 'blocked', tool, id, hits);
      return {
        allow: false,
        message: `the call to "${tool}" carries a secret Warden holds for you for another server (${what}) and was refused`,
      };
    }
    found('arguments', 'asked', tool, id, hits);
    const policy = d.policy();
    return d.approvals
      .request({
        server: d.server,
        instance: d.instance,
        tool,
        args: d.redact(args),
        timeoutSeconds: policy?.tools.approvalTimeoutSeconds ?? 120,
      })
      .then((approved) =>
        approved
          ? ALLOW
          : { allow: false, message: `the call to "${tool}" carrying a secret was not approved` },
      );
  };

  return {
    checkArgs(tool, args, id) {
      const policy = d.policy();
      if (!policy) return ALLOW;
      const rules = policy.tools.argRules;
      if (!rules || rules.length === 0)
        return checkSecretsInArgs(policy.tools.credentials ?? 'redact', tool, args, id);
      const scope: ArgScope = {
        roots: policy.filesystem.roots.map((r) => r.path),
        network: { mode: policy.network.mode, rules: networkOf(policy.network) },
      };
      const verdict = checkArguments(rulesOf(rules), tool, args, scope, factsOf(policy));
      return verdict instanceof Promise
        ? verdict.then((v) => afterRules(policy, tool, args, id, v))
        : afterRules(policy, tool, args, id, verdict);
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
        message: `the result of "${tool}" held credentials (${describeHits(hits)}) and was withheld by the server's credential policy`,
      };
    },
  };
}
