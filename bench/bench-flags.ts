/**
 * A benchmark's flags, read strictly: `--help` prints what the benchmark measures and each flag,
 * and exits 0; a flag it does not know, a number that is not one, or a stray argument prints the
 * same with the reason and exits 2, before anything is measured.
 */
import { parseArgs } from 'node:util';

/** One flag: a number with its default, a switch, or a text (a path, a list). */
export type FlagSpec =
  | { type: 'number'; fallback: number; help: string; min?: number }
  | { type: 'boolean'; help: string }
  | { type: 'string'; help: string; arg: string };

type Values<S extends Record<string, FlagSpec>> = {
  [K in keyof S]: S[K] extends { type: 'number' }
    ? number
    : S[K] extends { type: 'boolean' }
      ? boolean
      : string | undefined;
};

/** The usage text of `name`: its summary, then a line per flag. */
export function benchUsage(name: string, summary: string, specs: Record<string, FlagSpec>): string {
  const lines = Object.entries(specs).map(([flag, s]) => {
    const head = `--${flag}${s.type === 'number' ? ' N' : s.type === 'string' ? ` ${s.arg}` : ''}`;
    const tail = s.type === 'number' ? ` (default ${s.fallback})` : '';
    return `  ${head.padEnd(24)} ${s.help}${tail}`;
  });
  const flags = lines.length > 0 ? ['', 'flags:', ...lines] : ['', 'no flags'];
  return [`usage: node bench/run.mjs ${name} [flags]`, '', summary, ...flags, ''].join('\n');
}

/** Reads `args` (this process's by default) against `specs`; exits on --help or a bad flag. */
export function benchFlags<const S extends Record<string, FlagSpec>>(
  name: string,
  summary: string,
  specs: S,
  args: string[] = process.argv.slice(2),
): Values<S> {
  const usage = benchUsage(name, summary, specs);
  const refuse = (why: string): never => {
    process.stderr.write(`${name}: ${why}\n\n${usage}`);
    process.exit(2);
  };
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage);
    process.exit(0);
  }
  const options = Object.fromEntries(
    Object.entries(specs).map(([flag, s]) => [
      flag,
      { type: s.type === 'boolean' ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  let values: Record<string, string | boolean | undefined> = {};
  try {
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    refuse(e instanceof Error ? e.message : String(e));
  }
  const out: Record<string, unknown> = {};
  for (const [flag, s] of Object.entries(specs)) {
    const v = values[flag];
    if (s.type !== 'number') {
      out[flag] = s.type === 'boolean' ? v === true : v;
      continue;
    }
    if (v === undefined) {
      out[flag] = s.fallback;
      continue;
    }
    const n = Number(v);
    if (!/^\d+$/.test(String(v)) || n < (s.min ?? 1))
      refuse(`--${flag} takes a whole number of ${s.min ?? 1} or more, not "${String(v)}"`);
    out[flag] = n;
  }
  return out as Values<S>;
}
