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
 * Most arrays and objects accepted in one JSON-RPC message. Parsed, each costs 40 to 64 bytes of
 * memory and 0.2 to 0.3 µs of the thread that parses it, where its text can be two bytes (`{}`):
 * a message of 16 MB of them would take over 300 MB and more than a second of the core's thread.
 * A million caps one message near 64 MB and a third of a second; a real result holds far fewer.
 */
export const MAX_MESSAGE_CONTAINERS = 1_000_000;

/**
 * The nesting depth of JSON text and how many arrays and objects it opens, scanning no further
 * than needed: as soon as the text nests deeper than `maxDepth` or opens more than
 * `maxContainers`, the scan stops with that figure over its limit (strings are skipped, escapes
 * honoured). Text that is not valid JSON gets figures too; the parser refuses it afterwards.
 */
export function jsonTextShape(
  text: string,
  maxDepth: number,
  maxContainers = Infinity,
): { depth: number; containers: number } {
  let depth = 0;
  let deepest = 0;
  let containers = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (++containers > maxContainers) break;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > maxDepth) break;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { depth: deepest, containers };
}

/** The nesting depth of JSON text, as {@link jsonTextShape} finds it. */
export function jsonTextDepth(text: string, max: number): number {
  return jsonTextShape(text, max).depth;
}
