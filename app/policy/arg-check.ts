/**
 * Evaluates a server's argument rules against one tool call, before the gateway forwards it.
 * Pure: path facts (real paths on the host, as the sandbox sees them) come from an injected
 * resolver, and the call stays synchronous unless a path rule applies.
 */
import type { RE2JS } from 're2js';
import { MAX_WALK_DEPTH } from '../json/json-depth';
import {
  type ArgCheck,
  type ArgRule,
  MAX_MATCHED_LENGTH,
  compilePattern,
  parseArgCheck,
} from './arg-rules';
import { type CompiledRules, checkAddress, decideDestination } from './network-patterns';
import type { NetworkMode } from './policy-schema';
import { urlDestination } from './url-destination';

/** Host facts a path rule needs; provided by the core. */
export interface PathFacts {
  /**
   * Every real path `path` may name: with `..` applied before and after symlinks are followed
   * (a server may normalise it either way). Rejects when the path cannot be resolved.
   */
  realPaths(path: string): Promise<readonly string[]>;
  /** The same for a folder the policy names; the answer may be kept for the policy's life. */
  folderPaths(path: string): Promise<readonly string[]>;
}

/** What a call is checked against besides the rules: the server's folders and network. */
export interface ArgScope {
  roots: readonly string[];
  network: { mode: NetworkMode; rules: CompiledRules | undefined };
  /**
   * What the sandbox hides inside the folders: absolute paths (`~/` already expanded) and bare
   * name patterns (`.env.*`). A path there lies outside what a path rule allows.
   */
  hidden?: { paths: readonly string[]; names: (name: string) => boolean };
}

/** A refused call: the rule that refused it and why (never the value itself). */
export interface ArgRefusal {
  rule: ArgRule;
  reason: string;
}

/** A call's arguments pass every rule, or the first rule one of them fails. */
export type ArgVerdict = { ok: true } | { ok: false; refusal: ArgRefusal };

interface CompiledRule {
  rule: ArgRule;
  path: string[];
  check: ArgCheck;
  pattern?: RE2JS;
}

/** Rules parsed once; a rule that no longer parses refuses every call it would apply to. */
export interface CompiledArgRules {
  rules: readonly CompiledRule[];
  broken: readonly ArgRule[];
}

/** Parses and compiles a policy's rules (done once per policy revision by the caller). */
export function compileArgRules(rules: readonly ArgRule[]): CompiledArgRules {
  const out: CompiledRule[] = [];
  const broken: ArgRule[] = [];
  for (const rule of rules) {
    const check = parseArgCheck(rule.rule);
    if (!check.ok) {
      broken.push(rule);
      continue;
    }
    const compiled: CompiledRule = { rule, path: rule.arg.split('.'), check: check.value };
    if (check.value.kind === 'match') {
      const re = compilePattern(check.value.pattern);
      if (!re.ok) {
        broken.push(rule);
        continue;
      }
      compiled.pattern = re.value;
    }
    out.push(compiled);
  }
  return { rules: out, broken };
}

const OK: ArgVerdict = { ok: true };
const refuse = (rule: ArgRule, reason: string): ArgVerdict => ({
  ok: false,
  refusal: { rule, reason },
});

/** The values at a dotted path; arrays (at any step) are walked element-wise. */
export function valuesAt(args: unknown, path: readonly string[]): unknown[] {
  let current: unknown[] = [args];
  for (const part of path) {
    const next: unknown[] = [];
    for (const v of flatten(current)) {
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, part))
        next.push((v as Record<string, unknown>)[part]);
    }
    current = next;
  }
  return flatten(current).filter((v) => v !== null && v !== undefined);
}

function flatten(values: unknown[]): unknown[] {
  const out: unknown[] = [];
  const visit = (v: unknown, depth: number) => {
    if (!Array.isArray(v)) out.push(v);
    else if (depth >= MAX_WALK_DEPTH) out.push(v);
    else for (const item of v as unknown[]) visit(item, depth + 1);
  };
  for (const v of values) visit(v, 0);
  return out;
}

function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function checkText(c: CompiledRule, text: string): string | undefined {
  switch (c.check.kind) {
    case 'max-length':
      return text.length > c.check.max ? `is longer than ${c.check.max} characters` : undefined;
    case 'one-of':
      return c.check.values.includes(text) ? undefined : 'is not one of the allowed values';
    case 'match':
      if (text.length > MAX_MATCHED_LENGTH)
        return `is longer than the ${MAX_MATCHED_LENGTH} characters a match rule checks`;
      return c.pattern?.matches(text) ? undefined : 'does not match the pattern';
    default:
      return undefined;
  }
}

function checkHost(scope: ArgScope, text: string): string | undefined {
  const { mode, rules } = scope.network;
  if (mode === 'none' || !rules) return "is a destination, and the server's network is off";
  const dest = urlDestination(text);
  if (!dest.ok) return dest.error;
  if (dest.value.kind === 'ip' && !checkAddress(rules, dest.value.ip).allowed)
    return 'names a private, loopback or link-local address the network policy does not allow';
  const verdict = decideDestination(rules, dest.value);
  if (verdict.verdict === 'deny')
    return `names a host refused by the network policy (${verdict.rule})`;
  if (verdict.verdict === 'allow' || mode === 'ask') return undefined;
  return 'names a host the network policy does not allow';
}

const within = (path: string, folder: string) =>
  path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);

async function checkPath(
  c: CompiledRule,
  text: string,
  scope: ArgScope,
  facts: PathFacts,
): Promise<string | undefined> {
  if (!text.startsWith('/')) return 'is not an absolute path';
  if (text.includes('\u0000')) return 'holds a NUL character';
  const folders = c.check.kind === 'within' ? [c.check.path] : scope.roots;
  if (folders.length === 0) return 'is a path, and the server declares no folders';
  let real: readonly string[];
  let bases: string[];
  let hiddenBases: string[];
  try {
    real = await facts.realPaths(text);
    bases = (await Promise.all(folders.map((f) => facts.folderPaths(f)))).flat();
    hiddenBases = (
      await Promise.all((scope.hidden?.paths ?? []).map((f) => facts.folderPaths(f)))
    ).flat();
  } catch {
    return 'is a path that could not be resolved';
  }
  const where = c.check.kind === 'within' ? c.check.path : "the server's folders";
  const names = scope.hidden?.names ?? (() => false);
  for (const p of real) {
    const base = bases.find((b) => within(p, b));
    if (base === undefined) return `lies outside ${where}`;
    // The sandbox masks these inside the folders: the server is shown nothing there.
    const below = p.slice(base.length).split('/').filter(Boolean);
    if (hiddenBases.some((h) => within(p, h)) || below.some(names))
      return `lies in a path the sandbox hides (outside ${where})`;
  }
  return undefined;
}

/**
 * Checks a call's arguments: synchronously when no path rule applies, else a promise. The first
 * rule a value fails refuses the call; an argument the call does not carry is not checked.
 */
export function checkArguments(
  compiled: CompiledArgRules,
  tool: string,
  args: unknown,
  scope: ArgScope,
  facts: PathFacts,
): ArgVerdict | Promise<ArgVerdict> {
  const broken = compiled.broken.find((r) => r.tool === '*' || r.tool === tool);
  if (broken) return refuse(broken, 'the rule is not valid; fix it in the server policy');
  const paths: { c: CompiledRule; text: string }[] = [];
  for (const c of compiled.rules) {
    if (c.rule.tool !== '*' && c.rule.tool !== tool) continue;
    for (const value of valuesAt(args, c.path)) {
      const text = asText(value);
      const name = `argument "${c.rule.arg}"`;
      if (text === undefined) return refuse(c.rule, `${name} is not text, number or true/false`);
      const kind = c.check.kind;
      if (kind === 'within' || kind === 'within-roots') {
        if (typeof value !== 'string') return refuse(c.rule, `${name} is not a path`);
        paths.push({ c, text });
        continue;
      }
      const problem =
        kind === 'host-allowed'
          ? typeof value === 'string'
            ? checkHost(scope, text)
            : 'is not a URL'
          : checkText(c, text);
      if (problem) return refuse(c.rule, `${name} ${problem}`);
    }
  }
  if (paths.length === 0) return OK;
  return (async () => {
    for (const { c, text } of paths) {
      const problem = await checkPath(c, text, scope, facts);
      if (problem) return refuse(c.rule, `argument "${c.rule.arg}" ${problem}`);
    }
    return OK;
  })();
}
