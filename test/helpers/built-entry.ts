/** What a built CLI entry (out/cli/*.mjs) imports: tests that keep the entries small read it. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Its static imports of files and packages (Node's built-ins left out). */
export const staticImports = (text: string): string[] =>
  [...text.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)]
    .map((m) => m[1]!)
    .filter((s) => !s.startsWith('node:'));

/** The files it loads when needed (`import("./…")`). */
export const dynamicLoads = (text: string): string[] =>
  [...text.matchAll(/\bimport\("(\.[^"]+)"\)/g)].map((m) => m[1]!);

/** `file` and every built file it imports statically, transitively: what loads before it runs. */
export function staticClosure(file: string): string[] {
  const seen = new Set<string>();
  const visit = (f: string): void => {
    if (seen.has(f)) return;
    seen.add(f);
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^import\s(?:[^;]*?from\s*)?"(\.[^"]+)"/gm))
      visit(join(dirname(f), m[1]!));
  };
  visit(file);
  return [...seen];
}
