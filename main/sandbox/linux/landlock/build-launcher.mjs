// Compiles the Landlock launcher (landlock-exec.c) into out/landlock/ with the system C compiler
// (cc, gcc or clang; CC overrides). Without one the build still succeeds: the Landlock backend
// then reports itself unavailable and Warden refuses launches it would have needed, with a remedy.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const sources = ['landlock-exec.c', 'net-filter.c'].map((f) => join(here, f));

/** Builds out/landlock/landlock-exec under `root`; answers the reason when it could not. */
export function buildLandlockLauncher(root = process.cwd()) {
  if (process.platform !== 'linux') return 'not Linux';
  const outDir = join(root, 'out', 'landlock');
  mkdirSync(outDir, { recursive: true });
  const flags = [
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-static-pie',
    '-o',
    join(outDir, 'landlock-exec'),
    ...sources,
  ];
  const tried = [];
  for (const cc of [process.env.CC, 'cc', 'gcc', 'clang'].filter(Boolean)) {
    for (const f of [flags, flags.filter((x) => x !== '-static-pie')]) {
      try {
        execFileSync(cc, f, { stdio: ['ignore', 'ignore', 'pipe'] });
        return undefined;
      } catch (e) {
        tried.push(
          `${cc}: ${
            String(e.stderr ?? e.message)
              .trim()
              .split('\n')[0]
          }`,
        );
      }
    }
  }
  return `no C compiler could build the Landlock launcher (${tried.join('; ')})`;
}
