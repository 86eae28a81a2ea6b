// Compiles Warden's two small C programs with the system C compiler (cc, gcc or clang; CC
// overrides), on Linux only:
// - out/landlock/landlock-exec (main/sandbox/linux/landlock/): the Landlock backend's launcher.
//   Without it the Landlock backend reports itself unavailable and Warden refuses launches it
//   would have needed, with a remedy.
// - out/sandbox-init/warden-init (main/sandbox-init/warden-init.c): the sandbox init of a server
//   with a network. Without it the same init runs as a Node script (init.cjs), which costs the
//   launch a Node start-up before the server's.
// Without a compiler the build still succeeds; each program missing is reported.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The programs, their sources and where they go, relative to the repository. */
const PROGRAMS = [
  {
    what: 'Landlock backend unavailable',
    output: 'out/landlock/landlock-exec',
    sources: [
      'main/sandbox/linux/landlock/landlock-exec.c',
      'main/sandbox/linux/landlock/net-filter.c',
    ],
  },
  {
    what: 'the sandbox init runs on Node (slower network launches)',
    output: 'out/sandbox-init/warden-init',
    sources: ['main/sandbox-init/warden-init.c'],
  },
];

/** Builds one program, static where the toolchain can; answers the reason when it could not. */
function compile(root, sources, output) {
  mkdirSync(dirname(join(root, output)), { recursive: true });
  const flags = [
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-static-pie',
    '-o',
    join(root, output),
    ...sources.map((s) => join(root, s)),
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
  return `no C compiler could build ${output} (${tried.join('; ')})`;
}

/** Builds every program under `root`; answers a warning for each that could not be built. */
export function buildNativePrograms(root = process.cwd()) {
  if (process.platform !== 'linux') return [];
  return PROGRAMS.map((p) => {
    const why = compile(root, p.sources, p.output);
    return why && `${p.what}: ${why}`;
  }).filter(Boolean);
}
