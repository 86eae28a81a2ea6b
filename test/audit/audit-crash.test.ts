import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditCommand } from '../../main/audit/audit-cli';
import { openAuditStore } from '../../main/audit/audit-store';
import { bundleBesidePackagesAll } from '../helpers/bundle';

// The writer runs as a separate Node process, bundled on the fly.
let writer: string;
let dataDir: string;

bundleBesidePackagesAll(resolve(import.meta.dirname, 'audit-crash-writer.ts'), (s) => (writer = s));
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'warden-audit-crash-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs the writer until it reports `atLeast` rows, SIGKILLs it; returns the last count seen. */
async function killMidWrite(db: string, atLeast: number): Promise<number> {
  const child = spawn(process.execPath, [writer, db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let last = 0;
  await new Promise<void>((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      const counts = d.toString().trim().split('\n');
      last = Number(counts[counts.length - 1]);
      if (last >= atLeast && child.exitCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? done() : fail(new Error(`writer exited ${code}: ${stderr}`)),
    );
  });
  return last;
}

describe('audit store: crash safety', () => {
  it('a log whose writer is SIGKILLed mid-write opens, verifies and keeps every flushed row', async () => {
    const db = join(dataDir, 'audit.db');
    let before = 0;
    for (const target of [3000, 5000, 5000]) {
      const flushed = await killMidWrite(db, target);
      // The read-only CLI verifies the log as the crash left it, before anything recovers it.
      let said = '';
      const io = {
        stdout: (s: string) => void (said += s),
        stderr: (s: string) => void (said += s),
      };
      expect(await runAuditCommand(['verify'], io, { wardenHome: dataDir })).toBe(0);
      expect(said).toMatch(/^ok: \d+ rows verified/);
      const opened = openAuditStore({ path: db });
      if (!opened.ok) throw new Error(opened.error.message);
      const result = opened.value.verify();
      await opened.value.close();
      expect(result.ok).toBe(true);
      // Every batch the writer saw committed is there; a batch in flight may or may not be.
      expect(result.ok && result.rows).toBeGreaterThanOrEqual(before + flushed);
      before = result.ok ? result.rows : 0;
    }
  }, 60_000);
});
