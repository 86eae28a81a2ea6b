/** An audit log of its own for each test of a file, in a fresh folder, closed after the test. */
import { join } from 'node:path';
import { afterEach } from 'vitest';
import {
  type AuditStore,
  type AuditStoreOptions,
  openAuditStore,
} from '../../main/audit/audit-store';
import { tempDirEach } from './temp-dir';

export interface StoreEach {
  /** The test's folder; the log is `audit.db` in it. */
  readonly dir: string;
  /** The store `open` returned last, closed after the test unless a test cleared it. */
  store: AuditStore | undefined;
  /** Opens (or reopens) the test's log. */
  open(options?: Partial<AuditStoreOptions>): AuditStore;
}

export function auditStoreEach(prefix: string): StoreEach {
  let dir = '';
  tempDirEach(prefix, (d) => (dir = d));
  const each: StoreEach = {
    get dir() {
      return dir;
    },
    store: undefined,
    open(options = {}) {
      const opened = openAuditStore({ path: join(dir, 'audit.db'), ...options });
      if (!opened.ok) throw new Error(opened.error.message);
      each.store = opened.value;
      return opened.value;
    },
  };
  afterEach(async () => {
    await each.store?.close();
    each.store = undefined;
  });
  return each;
}
