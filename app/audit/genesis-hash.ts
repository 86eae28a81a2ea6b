/**
 * The start of every audit hash chain, on its own so that the writer thread can use it without
 * loading the row schemas.
 */

/** 64 hex zeros: the `prevHash` of the first row of every log. */
export const GENESIS_HASH = '0'.repeat(64);
