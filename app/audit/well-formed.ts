/**
 * Text as SQLite keeps it. A string holding a lone UTF-16 surrogate (a half of a pair, which a
 * server can put in any string it sends) is stored as UTF-8, where the surrogate becomes U+FFFD,
 * while JSON.stringify writes it as an escape: a row's hash taken before storing would then not
 * match the row read back, and the log would no longer verify. Each lone surrogate is replaced by
 * U+FFFD before the row is stored or hashed (what `String.prototype.toWellFormed` does).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every lone surrogate replaced by U+FFFD; `text` itself when it has none. */
export function wellFormed(text: string): string {
  LONE_SURROGATE.lastIndex = 0;
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}
