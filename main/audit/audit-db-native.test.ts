/**
 * A better-sqlite3 whose native module cannot be loaded is named as such, with the command that
 * fixes it, not as a folder or disk problem: built for another Node.js (the user's Node changed
 * after `npm install`), or never built (its install script did not run: `--ignore-scripts`, or an
 * npm that runs only the install scripts package.json's `allowScripts` approves).
 */
import { describe, expect, it, vi } from 'vitest';
import { openAuditDb } from './audit-db';

const loading = vi.hoisted(() => ({ error: '' }));

vi.mock('./sqlite-module', () => ({
  betterSqlite3: () => ({
    Database: class {
      constructor() {
        throw new Error(loading.error);
      }
    },
    nativeBinding: undefined,
  }),
}));

describe('the audit log with a native module built for another Node.js', () => {
  it('says which module, for which Node, and how to rebuild it', () => {
    loading.error =
      "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
      'NODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127.';
    const opened = openAuditDb('/tmp/none/audit.db');
    expect(!opened.ok && opened.error).toMatchObject({
      kind: 'open-failed',
      message: expect.stringContaining('NODE_MODULE_VERSION 115') as string,
      remedy: expect.stringContaining('npm rebuild better-sqlite3') as string,
    });
    expect(!opened.ok && opened.error.remedy).toContain(process.version);
    expect(!opened.ok && opened.error.remedy).not.toMatch(/disk/);
  });
});

describe('the audit log with a native module that was never built', () => {
  it('says its install script did not run, and how to build and approve it', () => {
    loading.error =
      'Could not locate the bindings file. Tried:\n → /x/node_modules/better-sqlite3/build/better_sqlite3.node';
    const opened = openAuditDb('/tmp/none/audit.db');
    expect(!opened.ok && opened.error).toMatchObject({
      kind: 'open-failed',
      message: expect.stringContaining('Could not locate the bindings file') as string,
      remedy: expect.stringContaining('install script did not run') as string,
    });
    const remedy = !opened.ok ? opened.error.remedy : '';
    expect(remedy).toContain('npm rebuild better-sqlite3');
    expect(remedy).toContain('npm install-scripts approve better-sqlite3');
    expect(remedy).not.toMatch(/disk|another Node/);
    expect(!opened.ok && opened.error.message).not.toContain('Tried');
  });
});
