/**
 * The client's MCP roots against the server's folders. A root is a `file:` URI naming a folder on
 * this host; it is read as the WHATWG URL parser reads it (`..` and `%2e%2e` applied), then
 * resolved to its real path, which is where the sandbox binds a folder (each declared root at its
 * own host path, see sandbox/linux/filesystem-view.ts). The server is offered only real paths:
 * a client root inside one of its folders, or one of its folders inside a client root. Whatever
 * else the client named is left out, and a folder outside the policy is a candidate for a grant.
 */
import { realpath, stat } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Client roots looked at per answer; the rest are left out (a list that long is not a workspace). */
export const MAX_CLIENT_ROOTS = 64;
const MAX_URI_LENGTH = 4096;

/** Real path of an existing folder, or undefined (missing, not a folder, unreadable). */
export type FolderReal = (path: string) => Promise<string | undefined>;

/** The host's answer: `realpath`, and only for a folder. */
export const hostFolderReal: FolderReal = async (path) => {
  try {
    const real = await realpath(path);
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
};

/** A client root's URI as a host path, or why it cannot be one. */
export function rootUriPath(uri: unknown): { path: string } | { reason: string } {
  if (typeof uri !== 'string') return { reason: 'not a string' };
  if (uri.length > MAX_URI_LENGTH) return { reason: 'too long' };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { reason: 'not a URI' };
  }
  if (url.protocol !== 'file:') return { reason: 'not a file: URI' };
  if (url.search !== '' || url.hash !== '') return { reason: 'has a query or fragment' };
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    // A host other than localhost, an encoded `/`, malformed escapes.
    return { reason: 'not a local folder' };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return { reason: 'control characters in the path' };
  if (!path.startsWith('/')) return { reason: 'not an absolute path' };
  return { path };
}

/** True when `path` is `folder` or lies below it (both real, absolute paths). */
export function isWithin(path: string, folder: string): boolean {
  if (folder === '/') return true;
  return path === folder || path.startsWith(`${folder}/`);
}

/** One client root as offered: its URI and optional name (untrusted). */
export interface ClientRoot {
  uri: string;
  name?: string;
}

/** What the server is told, and what the client named that it is not. */
export interface RootsIntersection {
  /** Roots for the server: real paths, each once, as `file:` URIs. */
  roots: ClientRoot[];
  /** Client folders (real paths) with no policy folder around them: grant candidates. */
  outside: string[];
  leftOut: { uri: string; reason: string }[];
}

/**
 * Intersects the client's roots with the folders the instance was launched with (real paths).
 * A client root inside a folder is kept (at its real path, with its name); a folder inside a
 * client root is offered as that folder; a client root not inside any folder is left out and
 * listed in `outside`.
 */
export async function intersectRoots(
  clientRoots: unknown,
  folders: readonly string[],
  real: FolderReal,
): Promise<RootsIntersection> {
  const out: RootsIntersection = { roots: [], outside: [], leftOut: [] };
  const seen = new Set<string>();
  const offer = (path: string, name?: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    out.roots.push({ uri: pathToFileURL(path).href, ...(name !== undefined ? { name } : {}) });
  };
  const list = Array.isArray(clientRoots) ? clientRoots : [];
  for (const [i, entry] of list.entries()) {
    const uri = (entry as { uri?: unknown } | null)?.uri;
    const shown = typeof uri === 'string' ? uri.slice(0, 300) : '(not a string)';
    if (i >= MAX_CLIENT_ROOTS) {
      out.leftOut.push({ uri: shown, reason: `more than ${MAX_CLIENT_ROOTS} roots` });
      continue;
    }
    const parsed = rootUriPath(uri);
    if ('reason' in parsed) {
      out.leftOut.push({ uri: shown, reason: parsed.reason });
      continue;
    }
    const path = await real(parsed.path);
    if (path === undefined) {
      out.leftOut.push({ uri: shown, reason: 'no such folder on this host' });
      continue;
    }
    const rawName = (entry as { name?: unknown }).name;
    const name = typeof rawName === 'string' ? rawName.slice(0, 200) : undefined;
    if (folders.some((f) => isWithin(path, f))) {
      offer(path, name);
      continue;
    }
    const inside = folders.filter((f) => isWithin(f, path));
    for (const f of inside) offer(f);
    out.leftOut.push({
      uri: shown,
      reason:
        inside.length > 0
          ? `outside the policy (offered ${inside.join(', ')} inside it)`
          : 'outside the policy',
    });
    if (!out.outside.includes(path)) out.outside.push(path);
  }
  return out;
}
