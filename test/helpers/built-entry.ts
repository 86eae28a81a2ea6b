/** What a built CLI entry (out/cli/*.mjs) imports: tests that keep the entries small read it. */

/** Its static imports of files and packages (Node's built-ins left out). */
export const staticImports = (text: string): string[] =>
  [...text.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)]
    .map((m) => m[1]!)
    .filter((s) => !s.startsWith('node:'));

/** The files it loads when needed (`import("./…")`). */
export const dynamicLoads = (text: string): string[] =>
  [...text.matchAll(/\bimport\("(\.[^"]+)"\)/g)].map((m) => m[1]!);
