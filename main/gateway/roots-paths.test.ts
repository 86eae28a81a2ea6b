import { describe, expect, it } from 'vitest';
import { intersectRoots, isWithin, rootUriPath } from './roots-paths';

/** A host where `/work/link` is a symlink to `/etc`, and these folders exist. */
const folders = new Set([
  '/',
  '/etc',
  '/work',
  '/work/app',
  '/work/app/src',
  '/work/other',
  '/tmp',
]);
const real = (path: string) => {
  const resolved = path.replace(/^\/work\/link(?=\/|$)/, '/etc');
  return Promise.resolve(folders.has(resolved) ? resolved : undefined);
};
const roots = (...uris: string[]) => uris.map((uri) => ({ uri }));

describe('rootUriPath', () => {
  it.each([
    ['file:///work/app', '/work/app'],
    ['file://localhost/work/app', '/work/app'],
    ['FILE:///work/app', '/work/app'],
    ['file:///work/app/../other', '/work/other'],
    ['file:///work/app/%2e%2e/other', '/work/other'],
    ['file:///work/my%20app', '/work/my app'],
  ])('%s is %s', (uri, path) => expect(rootUriPath(uri)).toEqual({ path }));

  it.each([
    [42, 'not a string'],
    ['/work/app', 'not a URI'],
    ['https://example.com/work', 'not a file: URI'],
    ['file://evil.example/work', 'not a local folder'],
    ['file:///work%2Fapp', 'not a local folder'],
    ['file:///work/%C0%AE%C0%AE/etc', 'not a local folder'],
    ['file:///work/app%00', 'control characters in the path'],
    ['file:///work/app%0a', 'control characters in the path'],
    ['file:///work/app?x=1', 'has a query or fragment'],
  ])('%s is left out: %s', (uri, reason) => expect(rootUriPath(uri)).toEqual({ reason }));

  it('leaves out a URI past 4096 characters', () => {
    expect(rootUriPath(`file:///${'a'.repeat(5000)}`)).toEqual({ reason: 'too long' });
  });
});

describe('isWithin', () => {
  it('compares whole path parts', () => {
    expect(isWithin('/work/app', '/work')).toBe(true);
    expect(isWithin('/work', '/work')).toBe(true);
    expect(isWithin('/workshop', '/work')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});

describe('intersectRoots', () => {
  it('keeps a client root inside a folder, offers a folder inside a client root, leaves the rest', async () => {
    const found = await intersectRoots(
      [{ uri: 'file:///work/app/src', name: 'src' }, { uri: 'file:///work' }],
      ['/work/app'],
      real,
    );
    expect(found.roots).toEqual([
      { uri: 'file:///work/app/src', name: 'src' },
      { uri: 'file:///work/app' },
    ]);
    expect(found.outside).toEqual(['/work']);
  });

  it('resolves .., encoded dots and symlinks before comparing, and offers real paths only', async () => {
    const found = await intersectRoots(
      roots(
        'file:///work/app/../../etc',
        'file:///work/app/%2E%2E/%2e%2e/etc',
        'file:///work/link',
      ),
      ['/work/app', '/work/link'],
      real,
    );
    expect(found.roots).toEqual([]);
    expect(found.outside).toEqual(['/etc']);
    expect(found.leftOut).toHaveLength(3);
  });

  it('leaves out what is not a folder here, and what is past the bound', async () => {
    const many = Array.from({ length: 70 }, () => 'file:///work/app');
    const found = await intersectRoots(
      [...roots('file:///nowhere'), null, 'file:///work/app', ...roots(...many)],
      ['/work/app'],
      real,
    );
    expect(found.roots).toEqual([{ uri: 'file:///work/app' }]);
    expect(found.leftOut.map((l) => l.reason)).toContain('no such folder on this host');
    expect(found.leftOut.filter((l) => l.reason.startsWith('more than'))).toHaveLength(70 + 3 - 64);
  });

  it('answers nothing for a client list that is not a list', async () => {
    expect(await intersectRoots({ uri: 'file:///work/app' }, ['/work/app'], real)).toEqual({
      roots: [],
      outside: [],
      leftOut: [],
    });
  });
});
