import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { betterSqlite3 } from './sqlite-module';

describe('better-sqlite3 as the audit log loads it', () => {
  it('names its native module outright under Node, and opens a database with it', () => {
    const { Database, nativeBinding } = betterSqlite3();
    expect(nativeBinding).toMatch(/better-sqlite3\/build\/Release\/better_sqlite3\.node$/);
    expect(existsSync(nativeBinding!)).toBe(true);
    const db = new Database(':memory:', { nativeBinding: nativeBinding! });
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
    expect(betterSqlite3()).toBe(betterSqlite3());
  });
});
