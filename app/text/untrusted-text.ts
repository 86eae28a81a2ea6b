/**
 * Showing untrusted text (server output, client config files, network names) at the edge where it
 * is displayed. Stored data stays exact; only what a terminal or a page shows is escaped, so that
 * control characters cannot move the cursor, rewrite earlier lines, set the clipboard or title,
 * and bidi overrides cannot make one string read as another.
 */

/** Options for {@link showUntrusted}. */
export interface ShowUntrustedOptions {
  /** Keep line feeds (and tabs) as they are, for multi-line displays such as a log view. */
  readonly multiline?: boolean;
}

/** True for a code point that must never reach a terminal or a page as itself. */
export function isHiddenCodePoint(cp: number): boolean {
  return (
    cp < 0x20 || // C0, ESC included
    cp === 0x7f || // DEL
    (cp >= 0x80 && cp <= 0x9f) || // C1 (CSI, OSC … as single code points)
    cp === 0x061c || // Arabic letter mark
    (cp >= 0x200b && cp <= 0x200f) || // zero-width characters, LRM, RLM
    (cp >= 0x2028 && cp <= 0x2029) || // line and paragraph separators
    (cp >= 0x202a && cp <= 0x202e) || // bidi embeddings and overrides
    (cp >= 0x2060 && cp <= 0x2064) || // word joiner and invisible operators
    (cp >= 0x2066 && cp <= 0x2069) || // bidi isolates
    cp === 0xfeff // zero-width no-break space
  );
}

function escapeCodePoint(cp: number): string {
  return cp <= 0xff
    ? `\\x${cp.toString(16).padStart(2, '0')}`
    : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/**
 * Renders control characters (C0, C1, DEL, ESC) and bidi and invisible format characters as
 * visible escapes (`\x1b`, `\u202e`). With `multiline`, line feeds and tabs are kept.
 */
export function showUntrusted(text: string, options: ShowUntrustedOptions = {}): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (options.multiline === true && (cp === 0x0a || cp === 0x09)) out += ch;
    else if (isHiddenCodePoint(cp)) out += escapeCodePoint(cp);
    else out += ch;
  }
  return out;
}
