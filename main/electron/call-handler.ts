/**
 * The main-process side of `warden:call`: checks the sender, checks the shape of the arguments,
 * and hands the operation to the core, which validates the input with the contract's schemas.
 * Every refusal is a reply value; nothing thrown here crosses IPC.
 */
import type { Reply } from '../../app/contract/reply';

export interface CallCore {
  handle(op: unknown, input: unknown): Promise<Reply>;
}

/** Builds the `warden:call` handler; `isTrusted` decides on the event before anything else. */
export function createCallHandler<E>(
  isTrusted: (event: E) => boolean,
  core: CallCore,
  onError: (error: unknown) => void = () => undefined,
): (event: E, ...args: unknown[]) => Promise<Reply> {
  return async (event, ...args) => {
    if (!isTrusted(event)) {
      return { ok: false, error: { kind: 'unauthorized', message: 'IPC from an untrusted frame' } };
    }
    const [op, input] = args;
    if (args.length > 2 || typeof op !== 'string' || op.length > 128) {
      return { ok: false, error: { kind: 'invalid-input', message: 'malformed IPC call' } };
    }
    try {
      return await core.handle(op, input);
    } catch (error) {
      onError(error);
      return { ok: false, error: { kind: 'internal', message: 'the core failed to answer' } };
    }
  };
}
