/** Validation that names the offending field, for config files, CLI flags and UI forms. */
import type { z } from 'zod';
import { type Result, err, ok } from '../result';

export interface FieldError {
  /** Dotted path with indexes, e.g. `servers[0].policy.network.mode`. */
  field: string;
  message: string;
}

/** Renders a zod issue path as `a.b[0].c`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

/** Parses `input` with `schema`, returning every problem with the field it concerns. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): Result<T, FieldError[]> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return ok(parsed.data);
  return err(parsed.error.issues.map((i) => ({ field: fieldPath(i.path), message: i.message })));
}

/** One line per problem, for CLI output and reports. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
