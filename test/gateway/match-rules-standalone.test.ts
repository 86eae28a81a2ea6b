/**
 * A `match=` argument rule in a session started without a running core: the core that goes on
 * with it does not hold the pattern engine (connect-entry.test.ts checks that), so it loads it at
 * the first call the rule applies to, and the rule decides as it does everywhere else. The
 * session is spoken raw and calls before it lists tools (listing loads the policy schema, which
 * holds the engine).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDirEach } from '../helpers/temp-dir';
import { initializeRequest, initializedNotification, jsonLines } from '../helpers/mcp-messages';
import { addEverythingServer } from '../helpers/everything-server';

const root = join(import.meta.dirname, '../..');

let home = '';
tempDirEach('warden-match-standalone-', (d) => (home = d));

const echo = (id: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { message } },
});

/** A raw session of `warden connect everything`: initialize, then `calls`; their answers by id. */
async function session(env: Record<string, string>, calls: { id: number }[]) {
  const child = spawn(join(root, 'bin/warden'), ['connect', 'everything'], { env });
  const answers = new Map<number, Record<string, unknown>>();
  const lines = createInterface({ input: child.stdout });
  const answered = new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      const m = JSON.parse(line) as { id?: number };
      if (typeof m.id === 'number') answers.set(m.id, m);
      if ([1, ...calls.map((c) => c.id)].every((id) => answers.has(id))) resolve();
    });
  });
  child.stdin.write(jsonLines(initializeRequest('match-standalone'), initializedNotification));
  child.stdin.write(jsonLines(...calls));
  await answered;
  child.stdin.end();
  await new Promise((resolve) => child.once('close', resolve));
  return answers;
}

describe('a match= rule without a running core', () => {
  it('refuses a call whose argument does not match and lets a matching one through', async () => {
    const env = { ...(process.env as Record<string, string>), WARDEN_HOME: home };
    const added = await addEverythingServer(env, '--arg-rule', 'echo:message:match=hi.*');
    expect(added.code).toBe(0);
    // The first session validates config.json in full (loading the policy schema) and records
    // it as valid; the second, as every later launch, reads it without the schema.
    await session(env, []);
    const answers = await session(env, [echo(2, 'bye'), echo(3, 'hi there')]);
    // Refused by the pattern itself: a rule that could not be compiled would say it is not valid.
    expect(JSON.stringify(answers.get(2))).toMatch(
      /refused by the argument rule echo:message:match=hi\.\*: argument \\"message\\" does not match/,
    );
    expect(JSON.stringify(answers.get(3))).toContain('Echo: hi there');
  });
});
