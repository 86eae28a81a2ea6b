/**
 * Checks, when a server is added or its command or folders change, that the script an
 * interpreter is told to run (node, python, deno, bun, uv run, ...) is a file the server will see
 * in its sandbox. A relative path or a script outside every visible folder would otherwise fail
 * at start with nothing better than the interpreter's version line.
 */
import type { LaunchSpec, Policy } from './policy-schema';

/** Folders every sandbox sees read-only, whatever its roots. */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
];

export interface ScriptProblem {
  kind: 'script-relative' | 'script-hidden';
  /** Index in `launch.args` of the script argument. */
  argIndex: number;
  script: string;
  message: string;
  /** What to do, with the exact flag where there is one. */
  remedy: string;
}

interface Interpreter {
  /** Options that take the next argument as their value. */
  valued: ReadonlySet<string>;
  /** Options after which there is no script (code given inline, a module by name). */
  noScript: ReadonlySet<string>;
  /** A subcommand to skip first (`deno run`, `uv run`); required when `needsSub`. */
  sub?: string;
  needsSub?: boolean;
  /** Options naming the folder a relative script is found from (`uv run --directory DIR`). */
  cwd?: ReadonlySet<string>;
}

const set = (...items: string[]) => new Set(items);
const NODE: Interpreter = {
  valued: set(
    '-r',
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '-C',
    '--conditions',
    '--env-file',
    '--input-type',
    '--title',
    '--stack-size',
    '--max-old-space-size',
  ),
  noScript: set(
    '-e',
    '--eval',
    '-p',
    '--print',
    '-i',
    '--interactive',
    '--test',
    '-v',
    '--version',
    '-h',
    '--help',
  ),
};
const PYTHON: Interpreter = {
  valued: set('-W', '-X', '-Q'),
  noScript: set('-c', '-m', '-V', '--version', '-h', '--help', '-'),
};
const INTERPRETERS: Record<string, Interpreter> = {
  node: NODE,
  nodejs: NODE,
  tsx: NODE,
  'ts-node': NODE,
  python: PYTHON,
  python2: PYTHON,
  python3: PYTHON,
  pypy: PYTHON,
  pypy3: PYTHON,
  deno: {
    valued: set(
      '-c',
      '--config',
      '--import-map',
      '-L',
      '--log-level',
      '--location',
      '--cert',
      '--lock',
      '--inspect-wait',
    ),
    noScript: set('-h', '--help', '-V', '--version'),
    sub: 'run',
    needsSub: true,
  },
  bun: {
    valued: set('--cwd', '-r', '--preload', '--env-file', '--config', '-c'),
    noScript: set('-e', '--eval', '-p', '--print', '-h', '--help', '-v', '--version'),
    sub: 'run',
    cwd: set('--cwd'),
  },
  uv: {
    valued: set(
      '--with',
      '--with-requirements',
      '--with-editable',
      '-p',
      '--python',
      '--directory',
      '--project',
      '--extra',
      '--group',
      '--env-file',
      '--index',
      '--default-index',
      '--package',
      '--config-file',
      '--cache-dir',
    ),
    noScript: set('-m', '--module', '-h', '--help'),
    sub: 'run',
    needsSub: true,
    cwd: set('--directory'),
  },
  ruby: { valued: set('-r', '-I', '-E'), noScript: set('-e', '-v', '--version', '-h', '--help') },
  perl: { valued: set('-I', '-M', '-m'), noScript: set('-e', '-E', '-v', '-h') },
};

const SCRIPT_EXTENSIONS = /\.(c|m)?(j|t)sx?$|\.py[wz]?$|\.rb$|\.pl$/i;

/** The interpreter's name without folder, `.exe` or version suffix: `/usr/bin/python3.12` → `python3`. */
function interpreterName(command: string): string {
  const base = (command.split(/[\\/]/).pop() ?? command).replace(/\.(exe|cmd)$/i, '').toLowerCase();
  return base.replace(/^(python[23]?|pypy3?|node)[.\d]*$/, '$1');
}

/** The script argument of `command args`, when the command is an interpreter running a file. */
export function scriptArgument(
  command: string,
  args: readonly string[],
): { index: number; path: string; from?: string } | undefined {
  const interpreter = INTERPRETERS[interpreterName(command)];
  if (!interpreter) return undefined;
  let i = 0;
  let from: string | undefined;
  let subSeen = false;
  if (interpreter.sub !== undefined) {
    if (args[0] === interpreter.sub) [i, subSeen] = [1, true];
    else if (interpreter.needsSub) return undefined;
  }
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    // `bun --cwd DIR run x.ts`: the subcommand may follow the interpreter's own options.
    if (arg === interpreter.sub && !subSeen) {
      subSeen = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (interpreter.noScript.has(name)) return undefined;
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1];
    if (interpreter.cwd?.has(name) && value !== undefined) from = value;
    if (interpreter.valued.has(name) && !arg.includes('=')) i++;
  }
  const path = args[i];
  if (path === undefined || (/^[a-z][a-z0-9+.-]*:/i.test(path) && !/^[a-z]:[\\/]/i.test(path)))
    return undefined; // nothing, or a URL / jsr: / npm: specifier, not a file
  // `bun run start`, `uv run tool`: a script name or a command, not a file.
  if (!path.includes('/') && !path.includes('\\') && !SCRIPT_EXTENSIONS.test(path))
    return undefined;
  return { index: i, path, ...(from !== undefined ? { from } : {}) };
}

const isAbsolute = (p: string) => p.startsWith('/') || /^[a-z]:[\\/]/i.test(p);

/** `base` joined with the relative `path`, `.` and `..` resolved (POSIX separators). */
export function joinPath(base: string, path: string): string {
  const parts: string[] = [];
  for (const part of `${base}/${path}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function folderOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * The problem with the script argument of `launch` under `policy`, if any. `cwd`, when known
 * (the CLI), turns a relative script into the exact absolute path and folder to declare.
 */
export function checkScript(
  launch: LaunchSpec,
  policy: Policy,
  cwd?: string,
): ScriptProblem | undefined {
  if (policy.isolation === 'off') return undefined;
  const found = scriptArgument(launch.command, launch.args);
  if (!found) return undefined;
  const { index } = found;
  // A relative script is found from the folder the interpreter is told to work in, or the
  // launch's working folder, when there is one.
  const from =
    found.from !== undefined && isAbsolute(found.from)
      ? found.from
      : found.from !== undefined && launch.cwd && isAbsolute(launch.cwd)
        ? joinPath(launch.cwd, found.from)
        : launch.cwd;
  const path =
    !isAbsolute(found.path) && from && isAbsolute(from) ? joinPath(from, found.path) : found.path;
  if (!isAbsolute(path)) {
    const absolute = cwd && isAbsolute(cwd) ? joinPath(cwd, path) : undefined;
    return {
      kind: 'script-relative',
      argIndex: index,
      script: path,
      message: `the script "${path}" is a relative path; the server starts in an empty folder of its sandbox, where it does not exist`,
      remedy: absolute
        ? `give its absolute path (${absolute}) and let the server read its folder: --ro ${folderOf(absolute)}`
        : 'give its absolute path, and add its folder as a read-only folder (--ro FOLDER)',
    };
  }
  const visible = [...SYSTEM_FOLDERS, ...policy.filesystem.roots.map((r) => r.path)];
  if (visible.some((dir) => within(path, dir))) return undefined;
  const folder = folderOf(path);
  return {
    kind: 'script-hidden',
    argIndex: index,
    script: path,
    message: `the script ${path} is outside every folder the server can see`,
    remedy: `let the server read its folder: --ro ${folder} (a read-only folder)`,
  };
}
