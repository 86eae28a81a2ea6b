/**
 * Real paths of a path argument on this host, for the argument rules. The sandbox binds each
 * declared folder at its own host path (see sandbox/linux/filesystem-view.ts), so a path means the
 * same inside and out, and symlinks are followed here as the kernel follows them there. A path is
 * read two ways, `..` applied before symlinks (as a server that normalises first does) and after
 * (as the kernel does); a rule must hold for both.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import type { PathFacts } from '../../app/policy/arg-check';

const MAX_LINKS = 40;

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Walks `path` component by component as the kernel does. Where a component does not exist, the
 * rest is applied as written (nothing below it can be a symlink); a dangling symlink is followed
 * to where a write through it would land. Other errors (permission, loops) reject.
 */
async function walk(path: string, links: number): Promise<string> {
  if (links > MAX_LINKS) throw new Error('too many levels of symbolic links');
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  let current = '/';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = posix.join(current, part);
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (error) {
      if (isMissing(error)) return posix.resolve(next, ...parts.slice(i + 1));
      throw error;
    }
    if (isLink) {
      const target = await readlink(next);
      const rest = parts.slice(i + 1).join('/');
      const base = posix.isAbsolute(target) ? target : posix.join(current, target);
      return walk(rest ? `${base}/${rest}` : base, links + 1);
    }
    current = next;
  }
  return current;
}

/** The real path of `path`: one `realpath` call when it exists, else the component walk. */
async function realOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
    return walk(path, 0);
  }
}

async function realPaths(path: string): Promise<readonly string[]> {
  // Without "." or ".." parts both readings are the same path: one lookup answers both.
  if (!/(^|\/)\.\.?(\/|$)/.test(path)) return [await realOf(path)];
  const [kernel, lexical] = await Promise.all([realOf(path), realOf(posix.resolve(path))]);
  return kernel === lexical ? [kernel] : [kernel, lexical];
}

/** Path facts read from this host's filesystem (folders looked up each time; see call-guards). */
export const hostPathFacts: PathFacts = { realPaths, folderPaths: realPaths };
