/**
 * The main-process side of `warden:call`: checks the shape of the arguments and hands the
 * operation to the core, which validates the input with the contract's schemas. The sender was
 * checked by the IPC wrapper before this runs; every refusal is a reply value.
 */
import type { Reply } from '../../app/contract/reply';

export interface CallCore {
  handle(op: unknown, input: unknown): Promise<Reply>;
}

/** Builds the `warden:call` handler. */
export function createCallHandler(core: CallCore): (...args: unknown[]) => Promise<Reply> {
  return async (...args) => {
    const [op, input] = args;
    if (args.length > 2 || typeof op !== 'string' || op.length > 128) {
      return { ok: false, error: { kind: 'invalid-input', message: 'malformed IPC call' } };
    }
    return core.handle(op, input);
  };
}
