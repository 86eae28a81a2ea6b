/**
 * Test fixture: appends audit events to the log at argv[2] as fast as it can, forever, printing
 * the number of rows known written after each flush. The crash test SIGKILLs it mid-write.
 */
import { openAuditStore } from '../../main/audit/audit-store';
import { callEvent, netEvent } from '../../main/audit/audit-test-events';

const path = process.argv[2];
if (!path) throw new Error('usage: audit-crash-writer DB');
const opened = openAuditStore({ path, batchSize: 200, flushDelayMs: 1 });
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.value;
let n = 0;

function burst(): void {
  for (let i = 0; i < 500; i += 1) {
    n += 1;
    store.append(n % 2 ? netEvent('github', n) : callEvent('files', n, { path: `/x/${n}` }));
  }
  store.flush().then(
    () => {
      process.stdout.write(`${n}\n`);
      setImmediate(burst);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
burst();
