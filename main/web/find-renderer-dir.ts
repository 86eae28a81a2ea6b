/** Locates the built control panel (out/renderer) from wherever the core runs: source tree or bundle. */
import { findBuiltDir } from '../sandbox/built-output';

export { findBuiltDir, findSandboxInitDir, outsideAsar } from '../sandbox/built-output';

/** The first `out/renderer` holding an index.html above `starts`, or undefined. */
export function findRendererDir(starts?: readonly string[]): Promise<string | undefined> {
  return findBuiltDir('renderer', 'index.html', starts);
}
