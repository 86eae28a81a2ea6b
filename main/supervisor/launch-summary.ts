/**
 * What the audit log and the UI say about a launch: the policy an instance launched with (names,
 * never values), and, when a server ended before answering, the stderr lines that tell why and the
 * policy change that most likely fixes it.
 */
import { dirname, isAbsolute, relative } from 'node:path';
import type { LaunchPolicySummary } from '../../app/audit/audit-event';
import type { FailureHint } from '../../app/contract/instances';
import { limitNames } from '../../app/policy/limit-names';
import type { Policy, Server } from '../../app/policy/policy-schema';

/** Summarizes `server`'s effective policy for a `sandbox.launch` event. */
export function launchSummary(server: Server, limitsNotEnforced: string[]): LaunchPolicySummary {
  const p = server.policy;
  const limits: Record<string, number> = {};
  for (const name of limitNames) {
    const value = p.limits[name];
    if (value !== undefined) limits[name] = value;
  }
  return {
    isolation: p.isolation,
    roots: p.filesystem.roots.map((r) => ({ path: r.path, access: r.access })),
    network: { mode: p.network.mode, allow: [...p.network.allow], deny: [...p.network.deny] },
    envPass: [...p.env.pass],
    envSet: Object.keys(p.env.set),
    limits,
    limitsNotEnforced,
  };
}

const ERROR_LINE =
  /\b(error|exception|traceback|fatal|panic|cannot|can't|denied|refused|not found|no such file|enoent|eacces|erofs|eperm)\b|ERR!/i;

/** Lines that say nothing about the cause: stack frames, Node's version footer, lone punctuation. */
function isNoise(line: string): boolean {
  const t = line.trim();
  return (
    t === '' ||
    /^at\s/.test(t) ||
    /^Node\.js v\d/.test(t) ||
    /^[\^{}()[\],;]+$/.test(t) ||
    /^throw \w+;?$/.test(t) ||
    /^node:internal\//.test(t) ||
    /^File ".*", line \d+/.test(t)
  );
}

/**
 * The stderr lines that tell why a server failed: the first line that reads as an error (often
 * the real cause, printed before a long stack), then the last `last` meaningful lines.
 */
export function tellingLines(lines: readonly string[], last = 3, maxLength = 300): string[] {
  const meaningful = lines.filter((l) => !isNoise(l)).map((l) => l.trim().slice(0, maxLength));
  const first = meaningful.find((l) => ERROR_LINE.test(l));
  const tail = meaningful.slice(-last);
  return first && !tail.includes(first) ? [first, ...tail] : tail;
}

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc', '/proc', '/sys', '/dev'];

function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const MISSING_FILE = [
  /Cannot find module '([^']+)'/,
  /can't open file '([^']+)'/,
  /ENOENT: no such file or directory, \w+ '([^']+)'/,
  /No such file or directory: '([^']+)'/,
];
const WRITE_REFUSED = [
  /(?:EROFS|EACCES|EPERM): [^,]*, \w+ '([^']+)'/,
  /Read-only file system: '([^']+)'/,
];

/**
 * The policy change that most likely fixes a failed start, read from its stderr: a file of the
 * server's own command line that lies outside every declared folder names the folder to add; a
 * write refused inside a read-only folder names that folder. Undefined when no known cause
 * matches. Stderr is the server's own text, so a folder is offered only for a path its command
 * line names: a server cannot talk the user into showing it some other folder. `exists` tells
 * whether a host folder exists (a folder that does not exist is never offered).
 */
export async function failureHint(
  lines: readonly string[],
  policy: Policy,
  launch: { command: string; args: readonly string[] },
  exists: (folder: string) => Promise<boolean>,
): Promise<FailureHint | undefined> {
  const named = new Set([launch.command, ...launch.args]);
  if (policy.isolation === 'off') return undefined;
  const roots = policy.filesystem.roots;
  for (const line of lines) {
    for (const pattern of WRITE_REFUSED) {
      const path = pattern.exec(line)?.[1];
      if (!path || !isAbsolute(path)) continue;
      const root = roots.find((r) => r.access === 'read' && isUnder(path, r.path));
      if (root) return { kind: 'make-writable', path, root: root.path };
    }
    for (const pattern of MISSING_FILE) {
      const path = pattern.exec(line)?.[1];
      if (!path || !isAbsolute(path) || !named.has(path)) continue;
      if (roots.some((r) => isUnder(path, r.path))) continue;
      if (SYSTEM_DIRS.some((d) => isUnder(path, d))) continue;
      const folder = dirname(path);
      if (folder !== '/' && (await exists(folder))) return { kind: 'add-folder', path, folder };
    }
  }
  return undefined;
}
