import { describe, expect, it } from 'vitest';
import { type ArgRule, parseArgCheck, parseArgRuleFlag } from './arg-rules';
import {
  type ArgScope,
  type PathFacts,
  checkArguments,
  compileArgRules,
  valuesAt,
} from './arg-check';
import { compileRules } from './network-patterns';
import { policySchema } from './policy-schema';
import { defaultPolicy } from './defaults';
import { urlDestination } from './url-destination';

/** A host whose /data/link points to /etc and /data/up to /data/.. (lexically fine, really /). */
const links: Record<string, string> = { '/data/link': '/etc', '/data/sub/ln': '/data' };
const facts: PathFacts = {
  realPaths(path) {
    const lexical = normalize(path);
    const follow = (p: string) => {
      for (const [from, to] of Object.entries(links))
        if (p === from || p.startsWith(`${from}/`)) return to + p.slice(from.length);
      return p;
    };
    // Kernel-style: follow links component by component before applying "..".
    let real = '';
    for (const part of path.split('/').filter(Boolean)) {
      if (part === '.') continue;
      real = part === '..' ? real.slice(0, real.lastIndexOf('/')) : follow(`${real}/${part}`);
    }
    return Promise.resolve([...new Set([follow(lexical), real || '/'])]);
  },
  folderPaths(path) {
    return this.realPaths(path);
  },
};
function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

const rules = (...r: [string, string, string][]): ArgRule[] =>
  r.map(([tool, arg, rule]) => ({ tool, arg, rule }));
const scope = (over: Partial<ArgScope['network']> = {}): ArgScope => {
  const compiled = compileRules({
    allow: ['api.example.com', '*.docs.example'],
    deny: ['evil.docs.example'],
    allowAddresses: [],
  });
  return {
    roots: ['/data'],
    network: { mode: 'allowlist', rules: compiled.ok ? compiled.value : undefined, ...over },
  };
};
const check = (r: ArgRule[], tool: string, args: unknown, s = scope()) =>
  Promise.resolve(checkArguments(compileArgRules(r), tool, args, s, facts));

describe('argument rules', () => {
  it('parses each form and refuses what is not a rule', () => {
    expect(parseArgCheck('within=/srv/x/').ok && parseArgCheck('within=/srv/x/')).toMatchObject({
      value: { kind: 'within', path: '/srv/x' },
    });
    expect(parseArgCheck('one-of=a|b')).toMatchObject({ value: { values: ['a', 'b'] } });
    for (const bad of [
      'within=rel',
      'within=/a/../b',
      'max-length=0',
      'match=(a',
      'nope',
      'within-roots=1',
    ])
      expect(parseArgCheck(bad).ok).toBe(false);
    expect(parseArgCheck(`match=${'a'.repeat(600)}`).ok).toBe(false);
    expect(parseArgRuleFlag('read_file:path:match=^a:b$')).toMatchObject({
      value: { tool: 'read_file', arg: 'path', rule: 'match=^a:b$' },
    });
    expect(parseArgRuleFlag('read_file:path').ok).toBe(false);
  });

  it('the schema gives a field error for a bad rule', () => {
    const policy = defaultPolicy();
    policy.tools.argRules = rules(['*', 'a..b', 'within-roots'], ['t', 'p', 'match=(']);
    const parsed = policySchema.safeParse(policy);
    expect(parsed.success).toBe(false);
    const paths = parsed.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(['tools.argRules.0.arg', 'tools.argRules.1.rule']);
  });

  it('walks dotted paths and arrays element-wise', () => {
    expect(valuesAt({ a: [{ b: 1 }, { b: [2, 3] }, { c: 4 }] }, ['a', 'b'])).toEqual([1, 2, 3]);
    expect(valuesAt({ a: null }, ['a'])).toEqual([]);
  });

  it('within-roots: inside passes; "..", a symlink and a relative path are refused', async () => {
    const r = rules(['*', 'path', 'within-roots'], ['*', 'paths', 'within-roots']);
    expect(await check(r, 'read', { path: '/data/notes.txt' })).toEqual({ ok: true });
    expect(await check(r, 'read', { path: '/data/new/file' })).toEqual({ ok: true });
    expect(await check(r, 'read', { other: '/etc/passwd' })).toEqual({ ok: true });
    for (const path of ['/data/../etc/passwd', '/data/link/passwd', 'notes.txt', '/datax/a']) {
      const v = await check(r, 'read', { path });
      expect(v.ok, path).toBe(false);
    }
    // Lexically inside, but ".." after a symlink leaves the root in the kernel's reading.
    expect((await check(r, 'read', { path: '/data/sub/ln/../../etc' })).ok).toBe(false);
    const many = await check(r, 'read', { paths: ['/data/a', '/data/../root/.ssh/id'] });
    expect(many).toMatchObject({ ok: false, refusal: { rule: { arg: 'paths' } } });
    expect((await check(r, 'read', { path: '/data/a' }, { ...scope(), roots: [] })).ok).toBe(false);
    expect((await check(r, 'read', { path: { nested: 1 } })).ok).toBe(false);
  });

  it('within=PATH narrows to one folder', async () => {
    const r = rules(['write', 'path', 'within=/data/out']);
    expect((await check(r, 'write', { path: '/data/out/a' })).ok).toBe(true);
    expect((await check(r, 'write', { path: '/data/outside' })).ok).toBe(false);
    expect((await check(r, 'read', { path: '/etc' })).ok).toBe(true);
  });

  it('host-allowed follows the network policy and refuses ambiguous URLs', async () => {
    const r = rules(['fetch', 'url', 'host-allowed']);
    const verdict = async (url: string, s = scope()) => (await check(r, 'fetch', { url }, s)).ok;
    expect(await verdict('https://api.example.com/v1')).toBe(true);
    expect(await verdict('https://a.docs.example:443/x')).toBe(true);
    expect(await verdict('https://evil.docs.example/')).toBe(false);
    expect(await verdict('https://other.test/')).toBe(false);
    expect(await verdict('https://other.test/', scope({ mode: 'ask' }))).toBe(true);
    expect(await verdict('https://api.example.com/', scope({ mode: 'none' }))).toBe(false);
    for (const url of [
      'https://api.example.com\\@evil.test/',
      'https://user@api.example.com/',
      'https://evil.test#@api.example.com',
      'http://127.0.0.1/',
      'http://[::1]:8080/',
      'http://169.254.169.254/latest',
      'file:///etc/passwd',
      'api.example.com',
      'https://%61pi.example.com/',
      'https:// api.example.com/',
    ])
      expect(await verdict(url), url).toBe(false);
    expect(urlDestination('https://API.Example.com.:8443/x')).toMatchObject({
      value: { host: 'api.example.com', port: 8443 },
    });
  });

  it('match, max-length and one-of', async () => {
    const r = rules(
      ['q', 'name', 'match=[a-z]+'],
      ['q', 'n', 'max-length=3'],
      ['q', 'mode', 'one-of=r|w'],
    );
    expect((await check(r, 'q', { name: 'abc', n: 'xyz', mode: 'r' })).ok).toBe(true);
    expect((await check(r, 'q', { name: 'abc1' })).ok).toBe(false);
    expect((await check(r, 'q', { n: 'long' })).ok).toBe(false);
    expect((await check(r, 'q', { n: 12 })).ok).toBe(true);
    expect((await check(r, 'q', { mode: 'x' })).ok).toBe(false);
  });

  it('a catastrophic pattern runs on the linear-time engine', async () => {
    // On a backtracking engine this check would not end; here it answers like any other.
    const r = rules(['q', 'v', 'match=(a+)+$']);
    expect((await check(r, 'q', { v: `${'a'.repeat(50_000)}!` })).ok).toBe(false);
    expect((await check(r, 'q', { v: 'a'.repeat(50_000) })).ok).toBe(true);
    expect((await check(r, 'q', { v: 'a'.repeat(70_000) })).ok).toBe(false);
  });

  it('a rule that no longer parses refuses the calls it covers', () => {
    const v = checkArguments(
      compileArgRules(rules(['t', 'p', 'match=('])),
      't',
      {},
      scope(),
      facts,
    );
    expect(v).toMatchObject({ ok: false });
  });
});
