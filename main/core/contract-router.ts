/**
 * Where contract calls enter the core: the operation name and payload are untrusted, so both are
 * checked here, the input is parsed with the operation's zod schema, and every failure comes
 * back as a ContractError value.
 */
import {
  type OperationName,
  type OperationOutput,
  type Operations,
  isOperationName,
  operations,
} from '../../app/contract/contract';
import type { z } from 'zod';
import { fieldPath } from '../../app/policy/validate';
import type { Reply } from '../../app/contract/reply';

export type Handlers = {
  [N in OperationName]: (
    input: z.output<Operations[N]['input']>,
  ) => Promise<Reply<OperationOutput<N>>>;
};

/** Builds the entry point that validates and dispatches one call. */
export function createContractRouter(
  handlers: Handlers,
): (op: unknown, input: unknown) => Promise<Reply> {
  return async (op, input) => {
    if (!isOperationName(op)) {
      return {
        ok: false,
        error: { kind: 'invalid-input', message: `unknown operation ${JSON.stringify(op)}` },
      };
    }
    const parsed = operations[op].input.safeParse(input ?? {});
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => ({
        field: fieldPath(i.path),
        message: i.message,
      }));
      return {
        ok: false,
        error: {
          kind: 'invalid-input',
          message: fields.map((f) => `${f.field}: ${f.message}`).join('; '),
          fields,
        },
      };
    }
    try {
      const handler = handlers[op] as (input: unknown) => Promise<Reply>;
      return await handler(parsed.data);
    } catch (error) {
      return {
        ok: false,
        error: { kind: 'internal', message: (error as Error).message ?? String(error) },
      };
    }
  };
}
