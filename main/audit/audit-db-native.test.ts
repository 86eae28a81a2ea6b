/**
 * A better-sqlite3 built for another Node.js (the user's Node changed after `npm install`) is
 * named as such, with the rebuild that fixes it, not as a folder or disk problem.
 */
import { describe, expect, it, vi } from 'vitest';
import { openAuditDb } from './audit-db';

vi.mock('./sqlite-module', () => ({
  betterSqlite3: () => ({
    Database: class {
      constructor() {
        throw new Error(
          "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
            'NODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127.',
        );
      }
    },
    nativeBinding: undefined,
  }),
}));

describe('the audit log with a native module built for another Node.js', () => {
  it('says which module, for which Node, and how to rebuild it', () => {
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
