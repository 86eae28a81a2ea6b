/**
 * The real Seatbelt backend on macOS: every test launches node under sandbox-exec with a
 * generated profile and tries the escape for real, beside a positive control that must succeed.
 * Elsewhere the suite is skipped; on macOS with WARDEN_REQUIRE_SANDBOX=1 a missing sandbox-exec
 * is a failure, not a skip.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { SANDBOX_EXEC, seatbeltBackend } from '../../main/sandbox/macos/seatbelt-backend';
import {
  type SeatbeltViolation,
  seatbeltLogTag,
  watchViolations,
} from '../../main/sandbox/macos/violation-log';

const onMac = process.platform === 'darwin';
const available = onMac && existsSync(SANDBOX_EXEC);

describe.runIf(onMac && process.env.WARDEN_REQUIRE_SANDBOX === '1')('Seatbelt required', () => {
  it('has /usr/bin/sandbox-exec', () => expect(available).toBe(true));
});

describe.runIf(available)('Seatbelt backend on macOS (real sandbox)', () => {
  let dir: string;
  const servers: Server[] = [];
  let egressPort = 0;
  let otherPort = 0;

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'warden-seatbelt-real-')));
    for (const d of ['ro', 'rw', 'outside', 'ro/secret', 'instance']) {
      await mkdir(join(dir, d), { recursive: true });
    }
    await writeFile(join(dir, 'ro', 'hello.txt'), 'hello');
    await writeFile(join(dir, 'outside', 'private.txt'), 'private');
    await writeFile(join(dir, 'ro', 'secret', 'key.txt'), 'key');
    const listen = async () => {
      const server = createServer((socket) => socket.end('pong'));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    };
    egressPort = await listen();
    otherPort = await listen();
  });

  afterAll(() => servers.forEach((s) => s.close()));

  /** Runs `script` with node inside the sandbox; resolves with its stdout and exit code. */
  async function sandboxed(
    script: string,
    change: (p: Policy) => void = () => undefined,
    extra: { readableFiles?: string[]; env?: Record<string, string> } = {},
  ) {
    const policy = defaultPolicy();
    policy.filesystem.roots = [
      { path: join(dir, 'ro'), access: 'read' },
      { path: join(dir, 'rw'), access: 'write' },
    ];
    change(policy);
    const backend = seatbeltBackend({ protectedPaths: [join(dir, 'ro', 'secret')] });
    const plan = await backend.compile(
      policy,
      { command: process.execPath, args: ['-e', script] },
      {
        instanceDir: join(dir, 'instance'),
        hostEnv: process.env,
        secrets: {},
        egressPort,
        ...(extra.readableFiles ? { readableFiles: extra.readableFiles } : {}),
      },
    );
    if (!plan.ok) throw new Error(`${plan.error.kind}: ${plan.error.message}`);
    const [cmd, ...args] = plan.value.argv;
    const env = { ...plan.value.env, ...extra.env };
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { out: out.trim(), code };
  }

  const tryRead = (path: string) =>
    `try { console.log(require('fs').readFileSync(${JSON.stringify(path)}, 'utf8')) } catch (e) { console.log(e.code) }`;
  const tryWrite = (path: string) =>
    `try { require('fs').writeFileSync(${JSON.stringify(path)}, 'x'); console.log('WROTE') } catch (e) { console.log(e.code) }`;
  const tryConnect = (port: number, host = '127.0.0.1') =>
    `const s = require('net').connect(${port}, ${JSON.stringify(host)}); s.on('data', d => { console.log(String(d)); s.destroy() }); s.on('error', e => console.log(e.code))`;

  it('reads a declared root (positive control) but nothing outside it', async () => {
    expect((await sandboxed(tryRead(join(dir, 'ro', 'hello.txt')))).out).toBe('hello');
    expect((await sandboxed(tryRead(join(dir, 'outside', 'private.txt')))).out).toBe('EPERM');
  });

  it('writes to write roots and its private temp, never to read roots or elsewhere', async () => {
    expect((await sandboxed(tryWrite(join(dir, 'rw', 'new.txt')))).out).toBe('WROTE');
    expect((await sandboxed(tryWrite(join(dir, 'instance', 'tmp', 'x')))).out).toBe('WROTE');
    expect((await sandboxed(tryWrite(join(dir, 'ro', 'new.txt')))).out).toBe('EPERM');
    expect((await sandboxed(tryWrite(join(dir, 'outside', 'new.txt')))).out).toBe('EPERM');
  });

  it('never exposes a protected path, even inside a declared root', async () => {
    expect((await sandboxed(tryRead(join(dir, 'ro', 'secret', 'key.txt')))).out).toBe('EPERM');
  });

  it('connects only to the egress broker port on loopback', async () => {
    const net = (p: Policy) => (p.network.mode = 'allowlist');
    expect((await sandboxed(tryConnect(egressPort), net)).out).toBe('pong');
    expect((await sandboxed(tryConnect(otherPort), net)).out).toBe('EPERM');
    expect((await sandboxed(tryConnect(443, '1.1.1.1'), net)).out).toBe('EPERM');
    expect((await sandboxed(tryConnect(egressPort))).out).toBe('EPERM');
  });

  it('loads the preload Warden gives a networked Node server, and still reads nothing beside it', async () => {
    const preload = join(dir, 'outside', 'preload.cjs');
    await writeFile(preload, 'globalThis.wardenPreloaded = true;\n');
    const script = `console.log(globalThis.wardenPreloaded ? 'PRELOADED' : 'NOT LOADED'); ${tryRead(join(dir, 'outside', 'private.txt'))}`;
    const net = (p: Policy) => (p.network.mode = 'allowlist');
    const run = await sandboxed(script, net, {
      readableFiles: [preload],
      env: { NODE_OPTIONS: `--require ${preload}` },
    });
    expect(run.out).toBe('PRELOADED\nEPERM');
  });

  it('cannot connect to a Unix socket on the host', async () => {
    const path = join(dir, 'rw', 'host.sock');
    const server = createServer((socket) => socket.end('pong'));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const script = `const s = require('net').connect(${JSON.stringify(path)}); s.on('data', d => console.log(String(d))); s.on('error', e => console.log(e.code))`;
    expect((await sandboxed(script)).out).toMatch(/^(EPERM|EACCES)$/);
  });

  it('holds the open-files limit', async () => {
    const script = `const fs = require('fs'); let n = 0; try { for (; n < 200; n++) fs.openSync('/dev/null', 'r') ; console.log('OPENED', n) } catch (e) { console.log(e.code) }`;
    const limited = (p: Policy) => (p.limits = { openFiles: 40, bestEffort: [] });
    expect((await sandboxed(script, limited)).out).toBe('EMFILE');
    expect((await sandboxed(script)).out).toBe('OPENED 200');
  });

  it('records a refusal in the unified log under the instance tag', async () => {
    const seen: SeatbeltViolation[] = [];
    const watch = watchViolations(
      seatbeltLogTag(join(dir, 'instance')),
      (v) => seen.push(v),
      () => undefined,
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await sandboxed(tryRead(join(dir, 'outside', 'private.txt')));
      for (let i = 0; i < 40 && seen.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      watch.stop();
    }
    expect(seen.some((v) => v.target?.includes('private.txt'))).toBe(true);
  });
});
