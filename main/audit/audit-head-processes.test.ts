/**
 * Two stores of one log stand for two Warden processes writing it (the app and a standalone
 * `warden connect`, each with its own head writer): a head write that waited its interval must
 * not put back an older head over the one the other wrote meanwhile, or rows cut from the end
 * after it would pass unnoticed.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { checkHead, readHead } from './audit-head';
import { type AuditStore, openAuditStore } from './audit-store';
import { netEvent } from './audit-test-events';
import { tempDirEach } from '../../test/helpers/temp-dir';

let db = '';
let headFile = '';
tempDirEach('warden-audit-head-processes-', (d) => {
  db = join(d, 'audit.db');
  headFile = join(d, 'audit-head.json');
});

function open(): AuditStore {
  const opened = openAuditStore({ path: db, headFile });
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("records the log's newest row, not the older batch of a write that waited", async () => {
  const app = open();
  const connect = open();
  app.append(netEvent('github', 1));
  await app.flush(); // the app's head file write: its next one waits for the interval
  app.append(netEvent('github', 2));
  await sleep(60); // the app's row 2 is committed; its head waits
  connect.append(netEvent('github', 3));
  connect.append(netEvent('github', 4));
  await connect.flush(); // the connect process writes the head at once: row 4
  await app.close(); // the app's head write that waited goes out last
  await connect.close();

  const file = new Database(db);
  const newest = file.prepare('SELECT max(id) FROM audit').pluck().get() as number;
  expect(readHead(headFile)?.id).toBe(newest);
  // Rows cut from the end are then caught.
  file.prepare('DELETE FROM audit WHERE id = ?').run(newest);
  expect(checkHead(file, readHead(headFile))).toMatchObject({ kind: 'truncated', missing: 1 });
  file.close();
});
