import { describe, expect, it } from 'vitest';
import { ContractCallError, contractErrorOf } from './contract-error';

describe('contractErrorOf', () => {
  const error = { kind: 'not-found' as const, message: 'no server named "x"' };
  it('reads a ContractCallError', () => {
    expect(contractErrorOf(new ContractCallError(error))).toEqual(error);
  });
  it('reads the plain object Electron delivers across the context bridge', () => {
    expect(contractErrorOf({ name: 'ContractCallError', message: error.message, error })).toEqual(
      error,
    );
  });
  it('ignores anything else', () => {
    expect(contractErrorOf(new Error('boom'))).toBeUndefined();
    expect(
      contractErrorOf({ name: 'ContractCallError', error: { kind: 'nonsense' } }),
    ).toBeUndefined();
    expect(contractErrorOf('text')).toBeUndefined();
  });
});
