/**
 * How much of a server's tool list Warden pins: each definition seen first is kept in the
 * server's policy (config.json) to tell a later change, so a server that lists ever new tools
 * would grow that file without end, and every write of it. A tool past these bounds is neither
 * pinned nor shown to the client, and the listing that brought it is recorded as a limit hit.
 */
import type { ToolDefinition } from '../../app/policy/policy-schema';

/** Longest tool name pinned (MCP asks for names of 1 to 128 characters). */
export const MAX_TOOL_NAME = 128;
/** Tools pinned per server at most. */
export const MAX_PINNED_TOOLS = 1000;
/** Characters of JSON of all of a server's pinned definitions at most. */
export const MAX_PINNED_CHARS = 4 * 1024 * 1024;

/** What a server's pins take now: how many, and their JSON's characters. */
export interface PinsUsed {
  count: number;
  chars: number;
}

/** What the definitions pinned so far take. */
export function pinsUsed(pinned: Readonly<Record<string, ToolDefinition>>): PinsUsed {
  const defs = Object.values(pinned);
  return { count: defs.length, chars: defs.reduce((n, d) => n + JSON.stringify(d).length, 0) };
}

/**
 * Why `def` cannot be pinned within `used`, or undefined after counting it into `used` (the
 * caller pins it).
 */
export function pinRefusal(def: ToolDefinition, used: PinsUsed): string | undefined {
  if (def.name.length > MAX_TOOL_NAME) return `its name is longer than ${MAX_TOOL_NAME} characters`;
  if (used.count >= MAX_PINNED_TOOLS) return `the server has ${MAX_PINNED_TOOLS} tools pinned`;
  const chars = JSON.stringify(def).length;
  if (used.chars + chars > MAX_PINNED_CHARS)
    return `the server's pinned definitions would pass ${MAX_PINNED_CHARS / 1024 / 1024} MB`;
  used.count += 1;
  used.chars += chars;
  return undefined;
}
