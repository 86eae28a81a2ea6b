/**
 * Nesting limits for JSON that comes from outside (an MCP server, a client, a config file). A
 * message nested deeper than {@link MAX_MESSAGE_DEPTH} is refused before it is parsed, so that no
 * later walk (hashing, redaction, pinning, diffing, display) meets a structure that could exhaust
 * the stack; the walks themselves are iterative or stop at {@link MAX_WALK_DEPTH} as a second line.
 */

/** Deepest nesting of arrays and objects accepted in one JSON-RPC message. Real schemas stay under 20. */
export const MAX_MESSAGE_DEPTH = 64;

/** Depth at which a recursive walk over JSON-like data stops and writes a marker instead. */
export const MAX_WALK_DEPTH = 256;

/** The marker a depth-limited walk writes in place of what lies deeper. */
export const TOO_DEEP_MARKER = '[Too deep]';

/**
 * The nesting depth of JSON text, scanning no further than needed: returns a number greater than
 * `max` as soon as the text nests deeper than `max` (strings are skipped, escapes honoured). Text
 * that is not valid JSON gets a depth too; the parser refuses it afterwards.
 */
export function jsonTextDepth(text: string, max: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
