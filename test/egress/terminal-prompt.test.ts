/**
 * The terminal prompt of `ask` mode: answers over plain streams, a real pseudo-terminal as the
 * controlling terminal, and the refusal message when there is no terminal at all.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GrantInbox, type GrantRequest } from '../../main/egress/grant-inbox';
import { attachTerminalPrompt } from '../../main/egress/terminal-prompt';
import { bundleForNode } from '../helpers/bundle';

const req = (host: string, timeoutMs = 60_000): GrantRequest => ({
  server: 'srv',
  instance: 'i1',
  host,
  port: 443,
  pattern: `${host}:443`,
  timeoutMs,
});

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (d: Buffer) => (text += d.toString()));
  return { io: { input, output, close: () => input.destroy() }, input, read: () => text };
}

describe('terminal prompt', () => {
  it('asks one grant at a time and maps the answers', async () => {
    const inbox = new GrantInbox();
    const { io, input, read } = streams();
    const stderr = new PassThrough();
    const stop = attachTerminalPrompt(inbox, io, stderr);
    const a = inbox.request(req('a.test'));
    const b = inbox.request(req('b.test'));
    expect(read()).toMatch(
      /srv wants to connect to a\.test:443\n.*\[o\]nce.*\[s\]ession.*\[a\]lways.*\[d\]eny.*\[n\]ever \(refused in 60 s\)\? $/s,
    );
    expect(read()).not.toMatch(/b\.test/);
    input.write('maybe\n');
    await new Promise((r) => setImmediate(r));
    expect(read()).toMatch(/please answer o, s, a, d or n/);
    input.write('s\n');
    expect((await a).outcome).toBe('allow-session');
    expect(read()).toMatch(/b\.test:443/);
    input.write('never\n');
    expect((await b).outcome).toBe('deny-always');
    stop();
  });

  it('without a terminal, says why the connection is refused', async () => {
    const inbox = new GrantInbox();
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (d: Buffer) => (text += d.toString()));
    const stop = attachTerminalPrompt(inbox, undefined, stderr);
    expect((await inbox.request(req('late.test', 50))).outcome).toBe('timeout');
    expect(text).toMatch(/srv wants late\.test:443; no terminal to ask on, refusing in 0 s/);
    expect(text).toMatch(
      /refused late\.test:443 for srv: no decision in time \(ask mode has no terminal or UI here\); allow it with --allow late\.test:443/,
    );
    stop();
  });

  it('opens the controlling terminal: a real pty answers, setsid has none', async () => {
    const bundle = await bundleForNode(
      join(dirname(import.meta.filename), 'fixtures/prompt-main.ts'),
      'cjs',
    );
    const py = `import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp('node', ['node', sys.argv[1]])
out = b''
while b'? ' not in out:
    out += os.read(fd, 1024)
os.write(fd, b'a\\n')
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode())`;
    const viaPty = await promisify(execFile)('/usr/bin/python3', ['-c', py, bundle], {
      timeout: 15_000,
    });
    expect(viaPty.stdout).toMatch(/s wants to connect to h\.test:1/);
    expect(viaPty.stdout).toMatch(/RESULT allow-always tty=true/);
    const noTty = await promisify(execFile)('setsid', ['-w', 'node', bundle], { timeout: 15_000 });
    expect(noTty.stderr).toMatch(/no terminal to ask on/);
    expect(noTty.stderr).toMatch(/RESULT timeout tty=false/);
  });
});
