/** `warden serve`: flags, the printed URL, the browser opener, and a real core behind it. */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { defaultPolicy } from '../../app/policy/defaults';
import { type Core, createCore } from '../core/core';
import { runServeCommand } from './serve-command';
import { tempDirEach } from '../../test/helpers/temp-dir';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) },
    out,
    err,
  };
}

let dir = '';
tempDirEach('warden-serve-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Warden</title>');
});

describe('runServeCommand flags', () => {
  it.each([
    [['--bogus'], '--bogus'],
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
    [['--port'], '--port'],
    [['extra'], 'extra'],
  ])('refuses %j with one line naming the flag and exit 2', async (args, flag) => {
    const { io, err, out } = captureIo();
    expect(await runServeCommand(args, io, { staticDir: dir })).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toContain(flag);
    expect(err.join('').trimEnd().split('\n')).toHaveLength(1);
  });

  it('prints help', async () => {
    const { io, out } = captureIo();
    expect(await runServeCommand(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('--no-open');
  });
});

describe('runServeCommand with a real core', () => {
  it('prints the URL line, opens it, serves the contract, and persists through the core', async () => {
    const home = join(dir, 'home');
    const { io, out } = captureIo();
    const opened: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = runServeCommand(['--gateway-port', '0'], io, {
      staticDir: dir,
      env: { WARDEN_HOME: home },
      openBrowser: (url) => opened.push(url),
      waitForStop: () => stopped,
    });
    await expect.poll(() => out.length, { timeout: 10_000 }).toBe(3);
    expect(out[0]).toMatch(/^MCP gateway at http:\/\/127\.0\.0\.1:\d+\/mcp\/NAME \(each AI client/);
    const line = out[1]!;
    const match = /^Warden is serving at (http:\/\/[0-9a-f]{32}\.localhost:(\d+)\/)\n/.exec(line);
    expect(match, line).not.toBeNull();
    const [, , port] = match as unknown as [string, string, string];
    // The fallback address, for scripts (as below) and browsers that cannot open the name.
    expect(line).toContain(`\n  Also at http://127.0.0.1:${port}/ for scripts and for browsers`);
    const token = /^Session token \(.*\): ([A-Za-z0-9_-]{43})\n/.exec(out[2]!)?.[1] ?? '';
    expect(token).not.toBe('');
    // The browser is given a file only its user can read, never a credential (written after the
    // lines are printed, so it may come a moment later).
    await expect.poll(() => opened.length).toBe(1);
    expect(opened[0]).toMatch(/^file:\/\/.*\/run\/open-\d+\.html$/);
    const file = fileURLToPath(opened[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    const html = await readFile(file, 'utf8');
    expect(html).not.toContain(token);
    expect(html).toContain(`${match![1]!}login?code=`);

    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, ['warden.v1', `warden.token.${token}`], {
      origin: `http://127.0.0.1:${port}`,
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const messages: Array<Record<string, unknown>> = [];
    ws.on('message', (d: Buffer) =>
      messages.push(JSON.parse(d.toString()) as Record<string, unknown>),
    );
    ws.send(
      JSON.stringify({
        id: 1,
        op: 'servers.add',
        input: {
          name: 'echo',
          launch: { command: 'npx', args: ['-y', 'echo-server'] },
          policy: defaultPolicy(),
        },
      }),
    );
    await expect
      .poll(() => messages.find((m) => m.id === 1))
      .toMatchObject({
        ok: true,
        value: { server: { name: 'echo' } },
      });
    // Every connected page hears about the change.
    expect(messages.find((m) => m.event === 'servers.changed')).toBeDefined();
    ws.close();

    stop();
    expect(await done).toBe(0);
    await expect(stat(file)).rejects.toThrow();
    const config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      servers: Array<{ name: string }>;
    };
    expect(config.servers.map((s) => s.name)).toEqual(['echo']);
  });

  it('does not open a browser with --no-open', async () => {
    const { io } = captureIo();
    const opened: string[] = [];
    const status = await runServeCommand(['--no-open', '--port', '0'], io, {
      staticDir: dir,
      env: { WARDEN_HOME: join(dir, 'home2') },
      openBrowser: (url) => opened.push(url),
      waitForStop: () => Promise.resolve(),
    });
    expect(status).toBe(0);
    expect(opened).toEqual([]);
  });

  it('announces what waits for an answer, on stderr and as a notification, once each', async () => {
    const { io, err } = captureIo();
    const raised: string[] = [];
    let core: Core | undefined;
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = runServeCommand(['--no-open', '--no-token', '--gateway-port', '0'], io, {
      staticDir: dir,
      env: { WARDEN_HOME: join(dir, 'home3') },
      createCore: async (opts) => (core = await createCore(opts)),
      notify: (n) => raised.push(`${n.tag.split(':')[0]} ${n.title}`),
      waitForStop: () => stopped,
    });
    await expect
      .poll(() => err.some((l) => l.includes('Secrets are stored')), { timeout: 10_000 })
      .toBe(true);
    // A call that waits for approval, as the gateway asks for it; a hostile tool name is escaped.
    const asked = core!.approvals.request({
      server: 'files',
      instance: 'files#1',
      tool: 'delete\u001b[2J',
      args: {},
      timeoutSeconds: 60,
    });
    await expect.poll(() => raised).toEqual(['approval files wants to call delete\u001b[2J']);
    expect(err.filter((l) => l.includes('wants to call'))).toEqual([
      'warden: files wants to call delete\\x1b[2J: answer it in the control panel\n',
    ]);
    const [pending] = core!.approvals.list();
    await core!.approvals.decide(pending!.id, 'deny');
    expect(await asked).toBe(false);
    expect(raised).toHaveLength(1);
    stop();
    expect(await done).toBe(0);
  });
});
