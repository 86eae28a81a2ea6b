/**
 * What a launch needs of egress before anything of the broker is loaded: where the sandbox init
 * and the fetch preload are, and how the proxy variables join a server's environment. Kept apart
 * from the broker and its proxy, so that a launch without a network never loads them.
 */
import { join } from 'node:path';

/** Where the sandbox init and the fetch preload are, and which Node runs them. */
export interface EgressRuntime {
  /** `process.execPath`: node, or the Electron executable (run with ELECTRON_RUN_AS_NODE=1). */
  nodePath: string;
  initScript: string;
  /**
   * The same init as a program of its own (`warden-init`, built from warden-init.c on Linux where
   * a C compiler was found): used instead of `initScript`, it spares each launch with a network a
   * Node start-up before the server's, and the sandbox a resident Node process.
   */
  initProgram?: string;
  preloadScript: string;
  isElectron: boolean;
}

/** The name of the compiled init in `out/sandbox-init/`. */
export const INIT_PROGRAM = 'warden-init';

/**
 * The runtime of this process, with the bundles in `outDir/sandbox-init/`; `withProgram` when
 * that folder holds the compiled init.
 */
export function currentEgressRuntime(outDir: string, withProgram = false): EgressRuntime {
  const dir = join(outDir, 'sandbox-init');
  return {
    nodePath: process.execPath,
    initScript: join(dir, 'init.cjs'),
    ...(withProgram ? { initProgram: join(dir, INIT_PROGRAM) } : {}),
    preloadScript: join(dir, 'fetch-preload.cjs'),
    isElectron: typeof process.versions.electron === 'string',
  };
}

/**
 * Adds the egress variables to a server environment; `NODE_OPTIONS` is appended to, not
 * replaced, so a server's own options survive beside the fetch preload. Where an init runs first
 * (`WARDEN_SERVER_NODE_OPTIONS`), all of it is kept aside for the server: the init must start
 * with no code loaded but its own, since it holds the channel to Warden.
 */
export function mergeEgressEnv(
  target: Record<string, string>,
  egressEnv: Readonly<Record<string, string>>,
): void {
  const own = target.NODE_OPTIONS;
  Object.assign(target, egressEnv);
  const after = (a: string | undefined, b: string) => (a ? `${a} ${b}` : b);
  if (egressEnv.WARDEN_SERVER_NODE_OPTIONS !== undefined) {
    target.WARDEN_SERVER_NODE_OPTIONS = after(own, egressEnv.WARDEN_SERVER_NODE_OPTIONS);
    delete target.NODE_OPTIONS;
  } else if (own && egressEnv.NODE_OPTIONS) {
    target.NODE_OPTIONS = after(own, egressEnv.NODE_OPTIONS);
  }
}
