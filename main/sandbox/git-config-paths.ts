/**
 * The paths a git config names that git runs code from or reads more config from: `core.hooksPath`
 * (hooks), and `include.path` / `includeIf.*.path` (a config of its own, which may set anything,
 * `core.fsmonitor` included). A repository kept read-only whose config names a path in a folder
 * the server may write would otherwise run what the server put there. Read as git's own parser
 * reads the format (config.c): sections, `key = value`, quotes, escapes, a backslash that goes on
 * with the next line inside a value only, comments; what git would reject names nothing, since
 * git then runs nothing at all.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

export interface NamedPaths {
  /** `core.hooksPath` values, as written (empty ones left out). */
  hooks: string[];
  /** `core.worktree` values, as written. */
  worktrees: string[];
  /** Include paths, resolved against the including file's folder (`~/` expanded). */
  includes: string[];
  /** More files than Warden follows: what the rest names is unknown. */
  tooMany?: true;
}

/** How deep git follows includes (config.c's MAX_INCLUDE_DEPTH): past it, git fails. */
const MAX_DEPTH = 10;
/** How many config files Warden reads for one file: past it, the launch is refused. */
const MAX_FILES = 200;

/**
 * What the config file `file` (and what it includes, followed as git does) names; nothing for a
 * file that cannot be read. `home` expands `~/`; `~user/` is looked up in /etc/passwd.
 */
export function gitConfigPaths(file: string, home: string | undefined): NamedPaths {
  const out: NamedPaths = { hooks: [], worktrees: [], includes: [] };
  let read = 0;
  const follow = (path: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (++read > MAX_FILES) {
      out.tooMany = true;
      return;
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return;
    }
    for (const { section, key, value } of entries(text)) {
      if (section === 'core' && key === 'hookspath' && value !== '') out.hooks.push(value);
      if (section === 'core' && key === 'worktree' && value !== '') out.worktrees.push(value);
      if ((section === 'include' || section === 'includeif') && key === 'path' && value !== '') {
        const named = expand(value, home);
        if (named === undefined) continue;
        const included = isAbsolute(named) ? named : resolve(dirname(path), named);
        out.includes.push(included);
        follow(included, depth + 1);
      }
    }
  };
  follow(file, 0);
  return out;
}

/**
 * `~/…` expanded against `home`, `~user/…` against that user's home in /etc/passwd; undefined when
 * it cannot be (git then fails on it); other values as they are.
 */
export function expand(value: string, home: string | undefined): string | undefined {
  if (!value.startsWith('~')) return value;
  const slash = value.indexOf('/');
  const user = value.slice(1, slash < 0 ? undefined : slash);
  const rest = slash < 0 ? '' : value.slice(slash);
  const base = user === '' ? home : homeOf(user);
  return base?.startsWith('/') ? `${base.replace(/\/+$/, '')}${rest}` : undefined;
}

function homeOf(user: string): string | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const fields = line.split(':');
      if (fields[0] === user) return fields[5];
    }
  } catch {
    /* no passwd file */
  }
  return undefined;
}

interface Entry {
  /** The section's name in lower case, without its subsection (`includeif`). */
  section: string;
  key: string;
  value: string;
}

const NAME = /[A-Za-z0-9-]/;
const BLANK = /[ \t\r]/;

/** The `key = value` entries of a git config text, in order; none if git would reject it. */
function entries(text: string): Entry[] {
  const out: Entry[] = [];
  let section = '';
  let i = 0;
  const skipLine = () => {
    while (i < text.length && text[i] !== '\n') i++;
    i++;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n' || BLANK.test(c)) {
      i++;
    } else if (c === '#' || c === ';') {
      skipLine();
    } else if (c === '[') {
      const end = text.indexOf(']', i);
      const header =
        end < 0
          ? undefined
          : /^\[\s*([A-Za-z0-9.-]+)(\s+"(?:[^"\\\n]|\\.)*")?\s*\]$/.exec(text.slice(i, end + 1));
      if (!header) return [];
      // `[core.x]` is the old form of a subsection: the section is the part before the dot.
      section = header[1]!.split('.')[0]!.toLowerCase();
      i = end + 1;
    } else if (/[A-Za-z]/.test(c)) {
      let key = '';
      while (i < text.length && NAME.test(text[i]!)) key += text[i++];
      while (i < text.length && BLANK.test(text[i]!)) i++;
      if (text[i] === '=') {
        i++;
        const value = readValue(text, i);
        if (value === undefined) return [];
        out.push({ section, key: key.toLowerCase(), value: value.text });
        i = value.end;
      } else if (i >= text.length || text[i] === '\n' || text[i] === '#' || text[i] === ';') {
        out.push({ section, key: key.toLowerCase(), value: 'true' });
        skipLine();
      } else {
        return [];
      }
    } else {
      return [];
    }
  }
  return out;
}

/**
 * A value from `start` to the end of its line (config.c's parse_value): leading blanks dropped,
 * trailing unquoted blanks too, quotes removed, escapes applied, a backslash before the end of a
 * line going on with the next, an unquoted `#` or `;` starting a comment; undefined where git
 * fails (an unknown escape, an unclosed quote).
 */
function readValue(text: string, start: number): { text: string; end: number } | undefined {
  let out = '';
  let quoted = false;
  let pending = ''; // unquoted blanks, kept only if something follows them
  let i = start;
  while (i < text.length && BLANK.test(text[i]!) && text[i] !== '\r') i++;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') break;
    if (!quoted && (c === '#' || c === ';')) {
      while (i < text.length && text[i] !== '\n') i++;
      break;
    }
    if (!quoted && BLANK.test(c)) {
      pending += c === '\r' ? '' : c;
      continue;
    }
    out += pending;
    pending = '';
    if (c === '\\') {
      const n = text[++i];
      if (n === '\n') continue;
      if (n === '\r' && text[i + 1] === '\n') {
        i++;
        continue;
      }
      const escaped = n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
      if (escaped === undefined || !'\n\t\b"\\'.includes(escaped)) return undefined;
      out += escaped;
    } else if (c === '"') {
      quoted = !quoted;
    } else {
      out += c;
    }
  }
  if (quoted) return undefined;
  return { text: out, end: i + 1 };
}
