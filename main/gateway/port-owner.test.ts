/**
 * The owner of a listening port is named by the program the kernel ran, not by the name the
 * process gives its thread (which it may set to anything, and which Node 24 sets to `MainThread`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { describePortOwner, findPortOwner } from './port-owner';

let dir = '';
tempDirEach('warden-port-owner-', (d) => (dir = d));
let listener: ChildProcess | undefined;
afterEach(() => {
  listener?.kill('SIGKILL');
  listener = undefined;
});

/** Starts `node` (a copy at `binary`) listening on a free port that names itself `decoy`. */
async function listen(binary: string): Promise<{ port: number; pid: number }> {
  const script = `process.title = 'decoy';
const s = require('net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  listener = spawn(binary, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    listener!.stdout!.setEncoding('utf8').once('data', (line: string) => done(Number(line)));
    listener!.once('exit', () => fail(new Error('the listener exited')));
  });
  return { port, pid: listener.pid! };
}

it.runIf(process.platform === 'linux')(
  'names the executable, kept as the kernel shows it once deleted, not the name it gave itself',
  async () => {
    const binary = join(dir, 'squatter');
    await copyFile(process.execPath, binary);
    const { port, pid } = await listen(binary);
    await unlink(binary);
    const owner = await findPortOwner(port);
    expect(owner).toMatchObject({ pid, command: `${binary} (deleted)` });
    expect(describePortOwner(owner)).toContain(`pid ${pid} (${binary} (deleted))`);
    expect(describePortOwner(owner)).not.toContain('decoy');
  },
);
