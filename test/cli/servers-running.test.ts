/**
 * `warden servers start|stop|restart|status` act on the running core over its control channel,
 * `servers edit` goes through that core too (one process writes the config and the audit log),
 * and without a running core they say so and where they looked. `warden connect` to a missing
 * server names the state folder.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Core, createCore } from '../../main/core/core';
import {
  type ControlChannel,
  controlChannelPath,
  listenControlChannel,
} from '../../main/core/control-channel';
import { runConnectCommand } from '../../main/gateway/connect-command';
import { startFrontDoors } from '../../main/gateway/front-doors';
import { runCli } from '../../main/cli/cli';
import { countingLocalChannel } from '../helpers/counting-channel';

const memory = join(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-memory/dist/index.js',
);

let home: string;
let core: Core;
let control: ControlChannel;
let out = '';
let err = '';
const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (err += s) };

async function warden(...argv: string[]): Promise<number> {
  out = '';
  err = '';
  return runCli(argv, io);
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-running-'));
  process.env.WARDEN_HOME = home;
  core = await createCore({ wardenHome: home });
  control = await listenControlChannel(core);
});
afterAll(async () => {
  await control.close();
  await core.close();
  delete process.env.WARDEN_HOME;
  await rm(home, { recursive: true, force: true });
});

describe('with a running core', () => {
  it('the control socket is reachable only by its owner', async () => {
    expect((await stat(join(home, 'run'))).mode & 0o777).toBe(0o700);
    expect((await stat(controlChannelPath(home))).mode & 0o777).toBe(0o600);
  });

  it('servers add and edit go through the running core', async () => {
    expect(
      await warden('servers', 'add', 'mem', '--isolation', 'off', '--', process.execPath, memory),
    ).toBe(0);
    expect(core.config.getServer('mem')?.revision).toBe(1);
    expect(await warden('servers', 'edit', 'mem', '--wall', '3600')).toBe(0);
    expect(core.config.getServer('mem')?.revision).toBe(2);
    expect(core.config.getServer('mem')?.policy.limits.wallSeconds).toBe(3600);
  });

  it('start, status, restart after an edit, stop', async () => {
    expect(await warden('servers', 'start', 'mem')).toBe(0);
    expect(out).toMatch(/^Started instance \S+ of "mem"/);
    await expect
      .poll(async () => (await warden('servers', 'status', 'mem'), out), { timeout: 20_000 })
      .toMatch(/^mem\t\S+\trunning .*\trevision [23]\tclient warden/);
    // Warden's own client has listed the tools: the server answered, so a restart is clean.
    await expect
      .poll(
        async () => (
          await warden('audit', 'list', '--server', 'mem', '--kind', 'mcp.response', '--json'),
          out
        ),
        {
          timeout: 20_000,
        },
      )
      .toMatch(/"kind": "mcp\.(response|call)"/);
    // Listing the tools pinned them: a new revision, which the running instance follows, as it
    // follows any change of its tools, without a restart.
    await expect.poll(() => core.config.getServer('mem')!.revision).toBe(3);
    await core.config.updateServer('mem', (s) => ({
      policy: { ...s.policy, tools: { ...s.policy.tools, disabled: ['read_graph'] } },
    }));
    expect(await warden('servers', 'status', 'mem')).toBe(0);
    expect(out).toMatch(/^mem\t\S+\trunning .*\trevision 4\tclient warden/);

    expect(await warden('servers', 'edit', 'mem', '--cpu', '600')).toBe(0);
    const revision = core.config.getServer('mem')!.revision;
    expect(await warden('servers', 'status', 'mem')).toBe(0);
    expect(out).toContain(`(policy is at revision ${revision}: restart to apply)`);

    expect(await warden('servers', 'restart', 'mem')).toBe(0);
    expect(out).toMatch(/^Restarted instance \S+ of "mem"/);
    await expect
      .poll(async () => (await warden('servers', 'status', 'mem', '--json'), out), {
        timeout: 20_000,
      })
      .toContain(`"revision": ${revision}`);

    expect(await warden('servers', 'stop', 'mem')).toBe(0);
    expect(out).toMatch(/^Stopped instance \S+ of "mem"/);
    expect(core.supervisor.list().filter((v) => v.state.kind === 'running')).toEqual([]);
    expect(await warden('servers', 'stop', 'mem')).toBe(1);
    expect(err).toContain(`"mem" has no running instance in the Warden at ${home}`);
  });

  it('a missing server names the state folder of the running core', async () => {
    expect(await warden('servers', 'start', 'nope')).toBe(1);
    expect(err).toContain(`no server named "nope" in ${home}`);
  });

  it('`warden connect` to a missing server, joining the running core, says where it looked', async () => {
    const doors = await startFrontDoors(core, { httpPort: 0 });
    try {
      // The real command, which takes a plain `connect` straight to the connect command (run
      // asynchronously: the core answering it is in this process).
      const bin = join(import.meta.dirname, '../../bin/warden.js');
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
        (resolve) => {
          const child = execFile(
            process.execPath,
            [bin, 'connect', 'nope', '--client', 'cli'],
            { env: { ...process.env, WARDEN_HOME: home } },
            (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
          );
          child.stdin?.end();
        },
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`warden: no server named "nope" in ${home}`);
    } finally {
      await doors.close();
    }
  });
});

describe('without a running core', () => {
  it('start, stop, restart and status say that no Warden runs for this folder', async () => {
    const other = await mkdtemp(join(tmpdir(), 'warden-none-'));
    process.env.WARDEN_HOME = other;
    try {
      for (const sub of ['start', 'stop', 'restart', 'status']) {
        expect(await warden('servers', sub, 'mem')).toBe(1);
        expect(err).toBe(
          `warden: servers ${sub}: no Warden is running for ${other}: start the app (npm start) or "warden serve" first; instances live in it\n`,
        );
      }
    } finally {
      process.env.WARDEN_HOME = home;
      await rm(other, { recursive: true, force: true });
    }
  });

  /** A control channel in a folder others may enter, as WARDEN_HOME while `run` runs. */
  async function inPlantedHome(prefix: string, run: (other: string) => Promise<void>) {
    const other = await mkdtemp(join(tmpdir(), prefix));
    process.env.WARDEN_HOME = other;
    const planted = await listenControlChannel({
      wardenHome: other,
      handle: () => Promise.resolve({ ok: true, value: [] }),
    });
    try {
      await chmod(join(other, 'run'), 0o755);
      await run(other);
    } finally {
      await planted.close();
      process.env.WARDEN_HOME = home;
      await rm(other, { recursive: true, force: true });
    }
  }

  it('a control channel that others could have planted is refused, not used', async () => {
    await inPlantedHome('warden-planted-', async (other) => {
      expect(await warden('servers', 'add', 'x', '--', 'true')).toBe(1);
      expect(err).toBe(
        `warden: refusing to talk to the Warden control channel: other users may enter ${join(other, 'run')} (mode 755); remove ${join(other, 'run')} if no Warden of yours runs\n`,
      );
    });
  });

  it('says so with the path escaped: no folder name writes to the terminal', async () => {
    await inPlantedHome('warden-\x1b]0;owned\x07-', async () => {
      expect(await warden('servers', 'list')).toBe(1);
      expect(err).toContain('refusing to talk to the Warden control channel');
      expect(err).toContain('warden-\\x1b]0;owned\\x07-');
      expect(err).not.toContain('\x1b');
      expect(err).not.toContain('\x07');
    });
  });

  it('a local channel that others could have planted is refused: connect neither uses it nor runs a core of its own', async () => {
    const other = await mkdtemp(join(tmpdir(), 'warden-planted-'));
    const env = process.env.WARDEN_HOME;
    process.env.WARDEN_HOME = other;
    // Whatever answers there would receive the client's messages: count what arrives.
    const { channel: planted, sessions: received } = await countingLocalChannel(other);
    const stdout = new PassThrough();
    let relayed = '';
    stdout.on('data', (c: Buffer) => (relayed += c.toString()));
    try {
      for (const [mode, expected] of [
        [0o755, `other users may enter ${join(other, 'run')} (mode 755)`],
        [0o733, `other users may enter ${join(other, 'run')} (mode 733)`],
      ] as const) {
        await chmod(join(other, 'run'), mode);
        err = '';
        const stdin = new PassThrough();
        stdin.end('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
        const status = await runConnectCommand(['files'], io, { stdin, stdout });
        expect(status).toBe(1);
        expect(err).toBe(
          `warden: refusing to talk to the Warden local channel: ${expected}; remove ${join(other, 'run')} if no Warden of yours runs\n`,
        );
      }
      expect(received()).toBe(0);
      expect(relayed).toBe('');
    } finally {
      await planted.close();
      process.env.WARDEN_HOME = env;
      await rm(other, { recursive: true, force: true });
    }
  });

  it('warden connect to a missing server says which state folder it looked in', async () => {
    const other = await mkdtemp(join(tmpdir(), 'warden-none-'));
    const env = process.env.WARDEN_HOME;
    delete process.env.WARDEN_HOME;
    process.env.XDG_CONFIG_HOME = other;
    try {
      err = '';
      const status = await runConnectCommand(['files'], io, {
        stdin: new PassThrough(),
        stdout: new PassThrough(),
      });
      expect(status).toBe(1);
      expect(err).toContain(
        `no server named "files" in ${join(other, 'mcp-warden')} (the default; WARDEN_HOME is not set;`,
      );
      expect(err).toContain('set WARDEN_HOME');
    } finally {
      delete process.env.XDG_CONFIG_HOME;
      process.env.WARDEN_HOME = env;
      await rm(other, { recursive: true, force: true });
    }
  });
});
