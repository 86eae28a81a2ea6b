/**
 * A small evaluator for the subset of SBPL that the profile generator emits, so that tests can
 * ask "would this operation on this path be allowed?" the way Seatbelt answers it: the last
 * matching rule wins, `(deny default)` when none matches. Strings are read with SBPL's escapes,
 * `#"…"` regex literals as written; `(param "X")` is replaced by the `-D` value, exactly as
 * sandbox-exec does. A regex is searched anywhere in the path, as Seatbelt does, with JavaScript's
 * engine: right for the classes, groups and anchors the generator emits.
 */
type Sexp = string | { str: string } | Sexp[];

/** Parses SBPL text into s-expressions; throws on unbalanced parentheses or bad strings. */
export function parseSbpl(text: string): Sexp[] {
  let i = 0;
  const out: Sexp[] = [];
  const stack: Sexp[][] = [out];
  while (i < text.length) {
    const c = text[i]!;
    if (c === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '(') {
      const list: Sexp[] = [];
      stack.at(-1)!.push(list);
      stack.push(list);
      i++;
    } else if (c === ')') {
      if (stack.length === 1) throw new Error(`unbalanced ) at ${i}`);
      stack.pop();
      i++;
    } else if (c === '#' && text[i + 1] === '"') {
      const end = text.indexOf('"', i + 2);
      if (end < 0) throw new Error('unterminated regex');
      stack.at(-1)!.push({ str: text.slice(i + 2, end) });
      i = end + 1;
    } else if (c === '"') {
      let s = '';
      i++;
      while (text[i] !== '"') {
        if (i >= text.length) throw new Error('unterminated string');
        if (text[i] === '\\') i++;
        s += text[i];
        i++;
      }
      i++;
      stack.at(-1)!.push({ str: s });
    } else {
      let atom = '';
      while (i < text.length && !/[\s()";]/.test(text[i]!)) atom += text[i++];
      stack.at(-1)!.push(atom);
    }
  }
  if (stack.length !== 1) throw new Error('unbalanced (');
  return out;
}

export type Request =
  | {
      op:
        | 'file-read-data'
        | 'file-read-metadata'
        | 'file-write-data'
        | 'file-write-create'
        | 'file-write-unlink'
        | 'file-map-executable'
        | 'file-test-existence'
        | 'file-write-mode'
        | 'file-write-setugid';
      path: string;
    }
  | { op: 'network-outbound'; host: string; port: number }
  | { op: 'mach-lookup'; name: string }
  | { op: 'sysctl-read'; name: string };

/** Every (param "X") the profile references. */
export function referencedParams(text: string): string[] {
  return [...text.matchAll(/\(param "([^"]+)"\)/g)].map((m) => m[1]!);
}

/** Decides `request` as Seatbelt would under `profile` with parameters `params`. */
export function evaluate(text: string, params: Record<string, string>, request: Request): boolean {
  let decision = false;
  for (const form of parseSbpl(text)) {
    if (!Array.isArray(form) || (form[0] !== 'allow' && form[0] !== 'deny')) continue;
    const rest = form.slice(1);
    const ops = rest.filter((x): x is string => typeof x === 'string');
    const filters = rest.filter((x): x is Sexp[] => Array.isArray(x) && x[0] !== 'with');
    if (ops.includes('default') && filters.length === 0) {
      decision = form[0] === 'allow';
      continue;
    }
    if (!ops.some((op) => opMatches(op, request.op))) continue;
    if (filters.length === 0 || filters.some((f) => filterMatches(f, params, request))) {
      decision = form[0] === 'allow';
    }
  }
  return decision;
}

function opMatches(ruleOp: string, op: Request['op']): boolean {
  if (ruleOp === op) return true;
  if (ruleOp.endsWith('*')) return op.startsWith(ruleOp.slice(0, -1));
  return false;
}

function value(x: Sexp | undefined, params: Record<string, string>): string {
  if (x && typeof x === 'object' && !Array.isArray(x)) return x.str;
  if (Array.isArray(x) && x[0] === 'param') {
    const name = value(x[1], params);
    const v = params[name];
    if (v === undefined) throw new Error(`parameter ${name} is not defined`);
    return v;
  }
  throw new Error(`unsupported value ${JSON.stringify(x)}`);
}

function filterMatches(f: Sexp[], params: Record<string, string>, r: Request): boolean {
  const kind = f[0];
  if (kind === 'require-all') {
    return f.slice(1).every((g) => Array.isArray(g) && filterMatches(g, params, r));
  }
  if (kind === 'require-not') return Array.isArray(f[1]) && !filterMatches(f[1], params, r);
  if ('path' in r) {
    if (kind === 'literal') return r.path === value(f[1], params);
    if (kind === 'regex') return new RegExp(value(f[1], params)).test(r.path);
    if (kind === 'subpath') {
      const base = value(f[1], params);
      return r.path === base || r.path.startsWith(base === '/' ? '/' : `${base}/`);
    }
    return false;
  }
  if (r.op === 'network-outbound' && kind === 'remote' && f[1] === 'ip') {
    return value(f[2], params) === `${r.host}:${r.port}`;
  }
  if (r.op === 'mach-lookup' && kind === 'global-name') return value(f[1], params) === r.name;
  if (r.op === 'sysctl-read') {
    if (kind === 'sysctl-name') return value(f[1], params) === r.name;
    if (kind === 'sysctl-name-prefix') return r.name.startsWith(value(f[1], params));
  }
  if (kind === 'target') return false;
  return false;
}
