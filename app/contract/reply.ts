/** The answer to one contract call, the same shape on every transport (IPC, WebSocket, socket). */
import type { Result } from '../result';
import type { ContractError } from './contract-error';

/** An operation's value, or the ContractError saying why it failed and what to do. */
export type Reply<T = unknown> = Result<T, ContractError>;
