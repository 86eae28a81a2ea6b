/**
 * A unified diff of two texts, line by line, for previewing what Warden will change in a
 * client's config. Common leading and trailing lines are trimmed before the LCS, so a large
 * file with a few local edits stays cheap.
 */

type Op = { tag: ' ' | '-' | '+'; line: string; a: number; b: number };

function lcsOps(a: string[], b: string[], offset: number): Op[] {
  const n = a.length;
  const m = b.length;
  const table = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[at(i, j)] =
        a[i] === b[j]
          ? table[at(i + 1, j + 1)]! + 1
          : Math.max(table[at(i + 1, j)]!, table[at(i, j + 1)]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ tag: ' ', line: a[i]!, a: offset + i, b: offset + j });
      i++;
      j++;
    } else if (i < n && (j === m || table[at(i + 1, j)]! >= table[at(i, j + 1)]!)) {
      ops.push({ tag: '-', line: a[i]!, a: offset + i, b: offset + j });
      i++;
    } else {
      ops.push({ tag: '+', line: b[j]!, a: offset + i, b: offset + j });
      j++;
    }
  }
  return ops;
}

/** The unified diff of `before` → `after` (empty when equal), with `context` lines around. */
export function unifiedDiff(before: string, after: string, label: string, context = 3): string {
  if (before === after) return '';
  const a = before.split(/\r?\n/);
  const b = after.split(/\r?\n/);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = [
    ...a.slice(0, start).map((line, i) => ({ tag: ' ' as const, line, a: i, b: i })),
    ...lcsOps(a.slice(start, endA), b.slice(start, endB), start),
    ...a.slice(endA).map((line, i) => ({
      tag: ' ' as const,
      line,
      a: endA + i,
      b: endB + i,
    })),
  ];
  const changed = ops.map((o, i) => (o.tag === ' ' ? -1 : i)).filter((i) => i >= 0);
  const out = [`--- ${label} (now)`, `+++ ${label} (after)`];
  let k = 0;
  while (k < changed.length) {
    const first = changed[k]!;
    let last = first;
    while (k + 1 < changed.length && changed[k + 1]! - last <= context * 2 + 1)
      last = changed[++k]!;
    k++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    const slice = ops.slice(from, to);
    const aCount = slice.filter((o) => o.tag !== '+').length;
    const bCount = slice.filter((o) => o.tag !== '-').length;
    out.push(`@@ -${slice[0]!.a + 1},${aCount} +${slice[0]!.b + 1},${bCount} @@`);
    for (const o of slice) out.push(`${o.tag}${o.line}`);
  }
  return `${out.join('\n')}\n`;
}
