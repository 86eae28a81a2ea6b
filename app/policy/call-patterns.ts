/**
 * Allowed calls: patterns of a tool call that go through without asking even though the tool
 * requires approval ("always for this tool with these arguments"). A pattern names the tool and,
 * for every argument the call carries, a rule its value must meet: `match=REGEX` (RE2, the whole
 * value), `one-of=A|B`, `max-length=N`, or `equals=JSON` for a value that is not text. A call with
 * an argument the pattern does not name, or without one it names, does not match: a remembered
 * approval never covers an argument the user did not see.
 */
import type { RE2JS } from 're2js';
import { canonicalJson } from '../audit/canonical-json';
import { type Result, err, ok } from '../result';
import { argPathProblem, compilePattern, parseArgCheck, toolNameProblem } from './arg-rules';

/** A remembered approval as the policy stores it. */
export interface CallPattern {
  tool: string;
  /** Top-level argument name → rule text. */
  args: Record<string, string>;
}

type ValueCheck = (value: unknown) => boolean;

/** A pattern compiled once, then matched against each call. */
export interface CompiledCallPattern {
  tool: string;
  checks: ReadonlyMap<string, ValueCheck>;
}

const RE2_SPECIAL = /[\\.+*?()|[\]{}^$]/g;

/** The `match=` rule that accepts exactly `text`. */
export function literalRule(text: string): string {
  return `match=${text.replace(RE2_SPECIAL, '\\$&')}`;
}

const textOf = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** Compiles one argument's rule, or says what is wrong with it. */
function compileValueRule(rule: string): Result<ValueCheck, string> {
  if (rule.startsWith('equals=')) {
    let expected: string | undefined;
    try {
      expected = canonicalJson(JSON.parse(rule.slice('equals='.length)));
    } catch {
      expected = undefined;
    }
    if (expected === undefined) return err('equals= needs a JSON value');
    return ok((v) => canonicalJson(v) === expected);
  }
  const check = parseArgCheck(rule);
  if (!check.ok) return err(check.error);
  const c = check.value;
  switch (c.kind) {
    case 'match': {
      const re = compilePattern(c.pattern);
      if (!re.ok) return err(re.error);
      const compiled: RE2JS = re.value;
      return ok((v) => {
        const t = textOf(v);
        return t !== undefined && compiled.matches(t);
      });
    }
    case 'one-of':
      return ok((v) => {
        const t = textOf(v);
        return t !== undefined && c.values.includes(t);
      });
    case 'max-length':
      return ok((v) => {
        const t = textOf(v);
        return t !== undefined && t.length <= c.max;
      });
    default:
      return err(
        `${rule} is not a rule an allowed call can use; write match=, one-of=, max-length= or equals=`,
      );
  }
}

/** Compiles a pattern; the error names the argument whose rule is wrong. */
export function compileCallPattern(p: CallPattern): Result<CompiledCallPattern, string> {
  const toolProblem = p.tool === '*' ? 'must name one tool' : toolNameProblem(p.tool);
  if (toolProblem) return err(`tool ${toolProblem}`);
  const checks = new Map<string, ValueCheck>();
  for (const [name, rule] of Object.entries(p.args)) {
    const nameProblem =
      argPathProblem(name) ?? (name.includes('.') ? 'must be a top-level argument' : undefined);
    if (nameProblem) return err(`argument "${name}" ${nameProblem}`);
    const check = compileValueRule(rule);
    if (!check.ok) return err(`argument "${name}": ${check.error}`);
    checks.set(name, check.value);
  }
  return ok({ tool: p.tool, checks });
}

/** What is wrong with a pattern, or undefined (the schema's check). */
export function callPatternProblem(p: CallPattern): string | undefined {
  const compiled = compileCallPattern(p);
  return compiled.ok ? undefined : compiled.error;
}

function plainObject(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/** Whether a call of `tool` with `args` is covered by the pattern (every argument checked). */
export function matchesCallPattern(p: CompiledCallPattern, tool: string, args: unknown): boolean {
  if (p.tool !== tool) return false;
  const given = plainObject(args ?? {});
  if (!given) return false;
  const names = Object.keys(given);
  if (names.length !== p.checks.size) return false;
  return names.every((n) => {
    const check = p.checks.get(n);
    return check !== undefined && Object.hasOwn(given, n) && check(given[n]);
  });
}

/**
 * The pattern that allows exactly these argument values (the user may widen it before saving);
 * undefined when the arguments are not an object of named values.
 */
export function suggestCallPattern(tool: string, args: unknown): CallPattern | undefined {
  const given = plainObject(args ?? {});
  if (!given) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (argPathProblem(name) || name.includes('.')) return undefined;
    const text = typeof value === 'string' ? value : undefined;
    out[name] = text !== undefined ? literalRule(text) : `equals=${canonicalJson(value)}`;
  }
  return { tool, args: out };
}

/** A pattern as one line: the tool, a space, and its argument rules as JSON. */
export function callPatternText(p: CallPattern): string {
  return `${p.tool} ${JSON.stringify(p.args)}`;
}

/** Parses {@link callPatternText}'s form; the error says what is wrong. */
export function parseCallPatternText(text: string): Result<CallPattern, string> {
  const space = text.indexOf(' ');
  const tool = space < 0 ? text : text.slice(0, space);
  let args: unknown;
  try {
    args = space < 0 ? {} : JSON.parse(text.slice(space + 1));
  } catch {
    return err('write TOOL {"ARG": "RULE", …} with the rules as JSON');
  }
  const named = plainObject(args);
  if (!named || !Object.values(named).every((v) => typeof v === 'string'))
    return err('the arguments must be a JSON object of rule texts');
  const pattern = { tool, args: named as Record<string, string> };
  const problem = callPatternProblem(pattern);
  return problem ? err(problem) : ok(pattern);
}
