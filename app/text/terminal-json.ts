/**
 * JSON for a terminal: `JSON.stringify` escapes C0 controls but leaves C1 controls and bidi or
 * invisible format characters as they are, which a terminal may act on. Those are written as
 * `\uXXXX` escapes here, so the output is still the same JSON value, byte for byte after parsing.
 */
import { isHiddenCodePoint } from './untrusted-text';

/** `JSON.stringify(value, null, indent)` with every hidden code point written as `\uXXXX`. */
export function terminalJson(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    out += cp > 0x7e && isHiddenCodePoint(cp) ? `\\u${cp.toString(16).padStart(4, '0')}` : ch;
  }
  return out;
}
