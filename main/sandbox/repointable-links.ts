/**
 * A path that a sandbox hides by its name (Warden's state folder, a declared hidden path such as
 * `~/.config/gh`) is found again by that name at every launch. Where the way to it runs through a
 * symlink that lies in a folder the server may write, the server could re-point that symlink, and
 * a later launch would hide whatever it then points at while the real folder showed, or would
 * read a state folder the server made. Such a path is refused, not hidden.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { launchError, type LaunchError } from '../../app/contract/launch-error';

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

/**
 * The first symlink on the way to `path` (absolute) whose folder lies inside one of `writable`
 * (real paths), if any. The path is resolved part by part as `realpath` does, each symlink's
 * target followed in turn, so that a symlink reached through another one is looked at too. A
 * part that cannot be looked at ends the check (what the caller then resolves fails on its own).
 */
export function symlinkOnTheWay(path: string, writable: readonly string[]): string | undefined {
  if (writable.length === 0) return undefined;
  let rest = path.split('/');
  // The real path resolved so far: it only ever grows by parts that are no symlink.
  let at = '/';
  for (let hops = 0; rest.length > 0;) {
    const part = rest.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      at = dirname(at);
      continue;
    }
    const next = at === '/' ? `/${part}` : `${at}/${part}`;
    let target: string;
    try {
      const info = lstatSync(next, { throwIfNoEntry: false });
      if (info === undefined) return undefined;
      if (!info.isSymbolicLink()) {
        at = next;
        continue;
      }
      if (writable.some((w) => within(at, w))) return next;
      // As the kernel gives up on a loop.
      if (++hops > 40) return undefined;
      target = readlinkSync(next);
    } catch {
      return undefined;
    }
    if (target.startsWith('/')) at = '/';
    rest = [...target.split('/'), ...rest];
  }
  return undefined;
}

/** The refusal of a hidden or protected path reached through `link` (see the module comment). */
export function repointableRefusal(what: string, link: string): LaunchError {
  return launchError(
    'root-invalid',
    `${what} is reached through the symlink ${link}, which lies in a folder this server may write: it could re-point the symlink, and a later launch would hide something else`,
    `declare narrower folders or make that folder read-only for this server, or replace ${link} by the folder it points to`,
  );
}
