/**
 * Argument rules: checks on a tool call's arguments made in the gateway before the call reaches
 * the server. A rule names a tool (or `*`), an argument (a dotted path into the arguments; arrays
 * are checked element-wise) and what the value must satisfy, written as text so that the CLI
 * (`--arg-rule TOOL:ARG:RULE`), the config file and the Tools tab say it the same way.
 *
 * `match=` patterns use RE2 syntax and run on a linear-time engine (re2js, loaded where needed:
 * pattern-engine.ts): no pattern, however written, can make a check backtrack for long. Patterns
 * are still limited in length.
 */
import type { RE2JS } from 're2js';
import { type Result, err, ok } from '../result';
import { patternEngine } from './pattern-engine';

/** What a rule requires of each value it applies to. */
export type ArgCheck =
  | { kind: 'within'; path: string }
  | { kind: 'within-roots' }
  | { kind: 'host-allowed' }
  | { kind: 'match'; pattern: string }
  | { kind: 'max-length'; max: number }
  | { kind: 'one-of'; values: string[] };

/** A rule as the policy stores it. */
export interface ArgRule {
  /** A tool name, or `*` for every tool of the server. */
  tool: string;
  /** The argument: a name or a dotted path (`options.target`). */
  arg: string;
  /** `within=PATH`, `within-roots`, `host-allowed`, `match=REGEX`, `max-length=N`, `one-of=A|B`. */
  rule: string;
}

/** The longest `match=` pattern accepted. */
export const MAX_PATTERN_LENGTH = 512;

/** The longest value a `match=` rule checks; a longer one is refused by that rule. */
export const MAX_MATCHED_LENGTH = 64 * 1024;

/** The forms a rule takes, for help text and error messages. */
export const RULE_FORMS =
  'within=PATH, within-roots, host-allowed, match=REGEX, max-length=N or one-of=A|B';

const ARG_PATH = /^[^.\s]+(\.[^.\s]+)*$/;

/** What is wrong with a dotted argument path, or undefined. */
export function argPathProblem(arg: string): string | undefined {
  return ARG_PATH.test(arg)
    ? undefined
    : 'must be an argument name or a dotted path such as options.target (no spaces, no empty parts)';
}

/** What is wrong with a rule's tool name, or undefined (`*` is every tool). */
export function toolNameProblem(tool: string): string | undefined {
  if (tool === '*') return undefined;
  return /^[^\s:*]{1,128}$/.test(tool)
    ? undefined
    : 'must be a tool name (no spaces, ":" or "*") or * for every tool';
}

/** Compiles a `match=` pattern, anchored to the whole value. */
export function compilePattern(pattern: string): Result<RE2JS, string> {
  if (pattern.length === 0) return err('match= needs a pattern');
  if (pattern.length > MAX_PATTERN_LENGTH)
    return err(`match= patterns are limited to ${MAX_PATTERN_LENGTH} characters`);
  const engine = patternEngine();
  if (!engine)
    return err('match= patterns cannot be compiled here: the pattern engine is not loaded');
  try {
    return ok(engine.compile(`(?:${pattern})`));
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    return err(`match= is not a valid RE2 pattern (${text})`);
  }
}

function absolutePathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'within= needs an absolute path';
  if (path.split('/').some((part) => part === '.' || part === '..'))
    return 'within= must not contain "." or ".." parts';
  if (path.includes('\u0000')) return 'within= must not contain a NUL character';
  return undefined;
}

/** Parses a rule's text; the error says what was wrong and the forms a rule takes. */
export function parseArgCheck(text: string): Result<ArgCheck, string> {
  const eq = text.indexOf('=');
  const name = eq < 0 ? text : text.slice(0, eq);
  const value = eq < 0 ? undefined : text.slice(eq + 1);
  const needs = (what: string) => err(`${name}= needs ${what}`);
  switch (name) {
    case 'within-roots':
    case 'host-allowed':
      return value === undefined ? ok({ kind: name }) : err(`${name} takes no value`);
    case 'within': {
      if (value === undefined || value === '') return needs('an absolute path');
      const problem = absolutePathProblem(value);
      const path = value.length > 1 ? value.replace(/\/+$/, '') : value;
      return problem ? err(problem) : ok({ kind: 'within', path });
    }
    case 'match': {
      if (value === undefined) return needs('a pattern');
      const compiled = compilePattern(value);
      return compiled.ok ? ok({ kind: 'match', pattern: value }) : err(compiled.error);
    }
    case 'max-length':
      if (value === undefined || !/^[1-9][0-9]{0,8}$/.test(value))
        return needs('a positive whole number');
      return ok({ kind: 'max-length', max: Number(value) });
    case 'one-of': {
      if (value === undefined || value === '') return needs('values separated by |');
      return ok({ kind: 'one-of', values: value.split('|') });
    }
    default:
      return err(`"${text}" is not a rule; write ${RULE_FORMS}`);
  }
}

/** What is wrong with a rule's text, or undefined. */
export function argCheckProblem(text: string): string | undefined {
  const parsed = parseArgCheck(text);
  return parsed.ok ? undefined : parsed.error;
}

/**
 * Parses the CLI form `TOOL:ARG:RULE` (the rule may itself hold ":", e.g. a pattern); every
 * part is checked as the schema checks it.
 */
export function parseArgRuleFlag(text: string): Result<ArgRule, string> {
  const first = text.indexOf(':');
  const second = first < 0 ? -1 : text.indexOf(':', first + 1);
  if (second < 0) return err(`expected TOOL:ARG:RULE (e.g. read_file:path:within-roots)`);
  const rule: ArgRule = {
    tool: text.slice(0, first),
    arg: text.slice(first + 1, second),
    rule: text.slice(second + 1),
  };
  const problem =
    (toolNameProblem(rule.tool) && `TOOL ${toolNameProblem(rule.tool)}`) ??
    (argPathProblem(rule.arg) && `ARG ${argPathProblem(rule.arg)}`) ??
    argCheckProblem(rule.rule);
  return problem ? err(problem) : ok(rule);
}

/** The CLI form of a rule, as `servers show` prints it. */
export function argRuleText(rule: ArgRule): string {
  return `${rule.tool}:${rule.arg}:${rule.rule}`;
}
