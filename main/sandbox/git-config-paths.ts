/**
 * The paths a git config names that git runs code from or reads more config from: `core.hooksPath`
 * (hooks), and `include.path` / `includeIf.*.path` (a config of its own, which may set anything,
 * `core.fsmonitor` included). A repository kept read-only whose config names a path in a folder
 * the server may write would otherwise run what the server put there. Read by a small parser of
 * git's format: sections, `key = value` lines, quotes and escapes, comments; what it cannot read
 * is no path.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

export interface NamedPaths {
  /** `core.hooksPath` values, as written. */
  hooks: string[];
  /** `core.worktree` values, as written. */
  worktrees: string[];
  /** Include paths, resolved against the config file's folder (`~/` against `home`). */
  includes: string[];
}

/** How many config files one repository's includes are followed through. */
const MAX_INCLUDES = 16;

/**
 * What the config file `file` (and what it includes, followed as git does) names; nothing for a
 * file that cannot be read. `home` expands `~/`.
 */
export function gitConfigPaths(file: string, home: string | undefined): NamedPaths {
  const out: NamedPaths = { hooks: [], worktrees: [], includes: [] };
  const pending = [file];
  const seen = new Set<string>();
  while (pending.length > 0 && seen.size < MAX_INCLUDES) {
    const next = pending.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    let text: string;
    try {
      text = readFileSync(next, 'utf8');
    } catch {
      continue;
    }
    for (const { section, key, value } of entries(text)) {
      if (section === 'core' && key === 'hookspath') out.hooks.push(value);
      if (section === 'core' && key === 'worktree') out.worktrees.push(value);
      if ((section === 'include' || section === 'includeif') && key === 'path') {
        const path = expand(value, home);
        if (path === undefined) continue;
        const included = isAbsolute(path) ? path : resolve(dirname(next), path);
        out.includes.push(included);
        pending.push(included);
      }
    }
  }
  return out;
}

/** `~/…` expanded against `home`, undefined when it cannot be; other values as they are. */
export function expand(value: string, home: string | undefined): string | undefined {
  if (value !== '~' && !value.startsWith('~/')) return value;
  return home?.startsWith('/') ? `${home.replace(/\/+$/, '')}${value.slice(1)}` : undefined;
}

interface Entry {
  /** The section's name in lower case, without its subsection (`includeif`). */
  section: string;
  key: string;
  value: string;
}

/** The `key = value` entries of a git config text, in order. */
function entries(text: string): Entry[] {
  const out: Entry[] = [];
  let section = '';
  // A line ending in an unescaped backslash goes on with the next one, as git reads it.
  for (const raw of text.replace(/(?<!\\)((?:\\\\)*)\\\r?\n/g, '$1').split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header) {
      // `[core.x]` is the old form of a subsection: the section is the part before the dot.
      section = header[1]!.split('.')[0]!.toLowerCase();
      line = line.slice(header[0].length).trim();
      if (line === '') continue;
    }
    const pair = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!pair) continue;
    out.push({ section, key: pair[1]!.toLowerCase(), value: unquote(pair[2] ?? '') });
  }
  return out;
}

/** A value as git reads it: quotes removed, escapes applied, an unquoted comment dropped. */
function unquote(value: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < value.length) {
      const n = value[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return quoted ? out : out.trimEnd();
}
