import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import type { LaunchPlan } from '../../main/sandbox/backend';
import { evaluate } from '../../main/sandbox/macos/sbpl-eval.test-helper';
import {
  SANDBOX_EXEC,
  type SeatbeltCompileContext,
  seatbeltBackend,
} from '../../main/sandbox/macos/seatbelt-backend';

const run = promisify(execFile);
let dir: string;
let home: string;
let ctx: SeatbeltCompileContext;
const backend = () => seatbeltBackend({ userHome: home, available: () => Promise.resolve(true) });
const launch = { command: '/bin/echo', args: ['-n', 'hi'] };

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'warden-seatbelt-')));
  home = join(dir, 'home');
  await mkdir(join(home, '.ssh', 'keys'), { recursive: true });
  await mkdir(join(dir, 'project', 'out'), { recursive: true });
  await mkdir(join(dir, 'instance'));
  await symlink(join(dir, 'project'), join(dir, 'link'));
  ctx = {
    instanceDir: join(dir, 'instance'),
    hostEnv: { PATH: '/usr/bin:/bin', HOME: home, SECRET_TOKEN: 'x', LANG: 'C.UTF-8' },
    secrets: { 'api-key': 's3cret' },
  };
});

function policy(change: (p: Policy) => void): Policy {
  const p = defaultPolicy();
  change(p);
  return p;
}

/** Splits a plan into its sandbox-exec parts. */
function parts(plan: LaunchPlan) {
  const at = plan.argv.indexOf(SANDBOX_EXEC);
  const rest = plan.argv.slice(at + 1);
  expect(rest[0]).toBe('-p');
  const end = rest.indexOf('--');
  const params: Record<string, string> = {};
  for (let i = 2; i < end; i += 2) {
    expect(rest[i]).toBe('-D');
    const [name, ...value] = (rest[i + 1] ?? '').split('=');
    params[name!] = value.join('=');
  }
  return { prefix: plan.argv.slice(0, at), text: rest[1]!, params, command: rest.slice(end + 1) };
}

describe('Seatbelt backend compile', () => {
  it('builds sandbox-exec argv with the profile, -D parameters and the command after --', async () => {
    const p = policy((p) => {
      p.filesystem.roots = [
        { path: join(dir, 'project'), access: 'read' },
        { path: join(dir, 'project', 'out'), access: 'write' },
      ];
    });
    const plan = await backend().compile(p, launch, ctx);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.backend).toBe('seatbelt');
    expect(plan.value.argv[0]).toBe(SANDBOX_EXEC);
    const { text, params, command } = parts(plan.value);
    expect(command).toEqual(['/bin/echo', '-n', 'hi']);
    expect(text).not.toContain(dir);
    const can = (op: 'file-read-data' | 'file-write-data', path: string) =>
      evaluate(text, params, { op, path });
    expect(can('file-read-data', join(dir, 'project', 'a'))).toBe(true);
    expect(can('file-write-data', join(dir, 'project', 'a'))).toBe(false);
    expect(can('file-write-data', join(dir, 'project', 'out', 'a'))).toBe(true);
    expect(can('file-write-data', join(dir, 'instance', 'tmp', 'a'))).toBe(true);
    expect(can('file-read-data', join(home, '.ssh', 'id_ed25519'))).toBe(false);
    expect(plan.value.env.HOME).toBe(join(dir, 'instance', 'home'));
    expect(plan.value.env.TMPDIR).toBe(join(dir, 'instance', 'tmp'));
    expect(plan.value.env.SECRET_TOKEN).toBeUndefined();
    expect(plan.value.env.HTTP_PROXY).toBeUndefined();
  });

  it('refuses roots that are missing, resolve elsewhere, or lie inside protected paths', async () => {
    for (const [root, words] of [
      [join(dir, 'missing'), 'does not exist'],
      [join(dir, 'link'), 'resolves to'],
      [join(home, '.ssh', 'keys'), 'never exposed'],
      ['relative/path', 'not an absolute path'],
    ] as const) {
      const p = policy((p) => (p.filesystem.roots = [{ path: root, access: 'read' }]));
      const plan = await backend().compile(p, launch, ctx);
      expect(plan.ok).toBe(false);
      if (!plan.ok) {
        expect(plan.error.kind).toBe('root-invalid');
        expect(plan.error.message).toContain(words);
        expect(plan.error.remedy).not.toBe('');
      }
    }
  });

  it('gives a networked server only the egress broker port, and fails closed without one', async () => {
    const p = policy((p) => (p.network.mode = 'allowlist'));
    const missing = await backend().compile(p, launch, ctx);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error.kind).toBe('internal');
    const plan = await backend().compile(p, launch, { ...ctx, egressPort: 40555 });
    if (!plan.ok) throw new Error(plan.error.message);
    const { text, params } = parts(plan.value);
    const net = (port: number) =>
      evaluate(text, params, { op: 'network-outbound', host: 'localhost', port });
    expect(net(40555)).toBe(true);
    expect(net(40556)).toBe(false);
    expect(plan.value.env.HTTPS_PROXY).toBe('http://127.0.0.1:40555');
    expect(plan.value.env.ALL_PROXY).toBe('socks5h://127.0.0.1:40555');
    expect(plan.value.env.NO_PROXY).toBe('');
  });

  it('lets a networked server read the fetch preload file, and nothing else beside it', async () => {
    const p = policy((p) => (p.network.mode = 'allowlist'));
    const preload =
      '/Applications/MCP Warden.app/Contents/Resources/app.asar.unpacked/out/sandbox-init/fetch-preload.cjs';
    const plan = await backend().compile(p, launch, {
      ...ctx,
      egressPort: 40555,
      readableFiles: [preload],
    });
    if (!plan.ok) throw new Error(plan.error.message);
    const { text, params } = parts(plan.value);
    const can = (op: 'file-read-data' | 'file-read-metadata', path: string) =>
      evaluate(text, params, { op, path });
    expect(can('file-read-data', preload)).toBe(true);
    expect(can('file-read-data', preload.replace('fetch-preload', 'init'))).toBe(false);
    expect(can('file-read-metadata', '/Applications/MCP Warden.app/Contents')).toBe(true);
    expect(can('file-read-data', '/Applications/MCP Warden.app/Contents/Resources/app.asar')).toBe(
      false,
    );
    // Without network there is no proxy, so no preload to read either.
    const offline = await backend().compile(defaultPolicy(), launch, {
      ...ctx,
      readableFiles: [preload],
    });
    if (!offline.ok) throw new Error(offline.error.message);
    expect(
      evaluate(parts(offline.value).text, parts(offline.value).params, {
        op: 'file-read-data',
        path: preload,
      }),
    ).toBe(false);
  });

  it('refuses the Linux fd-3 egress init, which has no network namespace to live in here', async () => {
    const wrapper = { argv: ['/usr/bin/node', '/init.cjs'], readOnlyBinds: ['/init.cjs'] };
    const plan = await backend().compile(defaultPolicy(), launch, { ...ctx, wrapper });
    expect(plan).toMatchObject({ ok: false, error: { kind: 'internal' } });
  });

  it('passes only declared variables and resolved secrets; a missing secret fails closed', async () => {
    const p = policy((p) => {
      p.env.pass = ['SECRET_TOKEN'];
      p.env.set = {
        API_KEY: { kind: 'secret', ref: 'api-key' },
        MODE: { kind: 'plain', value: 'x' },
      };
    });
    const plan = await backend().compile(p, launch, ctx);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.env).toMatchObject({ SECRET_TOKEN: 'x', API_KEY: 's3cret', MODE: 'x' });
    const lost = await backend().compile(p, launch, { ...ctx, secrets: {} });
    expect(lost.ok).toBe(false);
  });

  it('refuses limits macOS cannot enforce unless they are marked best-effort', async () => {
    const strict = policy((p) => (p.limits = { memoryMb: 512, pids: 10, bestEffort: [] }));
    const refused = await backend().compile(strict, launch, ctx);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.kind).toBe('limit-unsupported');
    const lenient = policy(
      (p) => (p.limits = { memoryMb: 512, pids: 10, bestEffort: ['memoryMb', 'pids'] }),
    );
    const plan = await backend().compile(lenient, launch, ctx);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.enforcedLimits).toEqual({});
    expect(plan.value.argv[0]).toBe(SANDBOX_EXEC);
  });

  it('sets open-file and CPU limits as hard limits the server cannot raise', async () => {
    const p = policy((p) => (p.limits = { openFiles: 64, cpuSeconds: 7, bestEffort: [] }));
    const plan = await backend().compile(p, launch, ctx);
    if (!plan.ok) throw new Error(plan.error.message);
    const { prefix } = parts(plan.value);
    expect(Object.keys(plan.value.enforcedLimits).sort()).toEqual(['cpuSeconds', 'openFiles']);
    // Run the same wrapper on this host in place of sandbox-exec: the limits hold, and an
    // attempt to raise them again is refused.
    const probe =
      'ulimit -Sn; ulimit -Hn; ulimit -St; ulimit -Ht; ulimit -n 1024 2>/dev/null && echo RAISED || echo REFUSED';
    // root may raise hard limits; run the check as the unprivileged test user in that case.
    const asUser =
      process.getuid?.() === 0
        ? [
            'setpriv',
            `--reuid=${process.env.WARDEN_TEST_USER ?? 'wtest'}`,
            `--regid=${process.env.WARDEN_TEST_USER ?? 'wtest'}`,
            '--init-groups',
          ]
        : [];
    const [cmd, ...args] = [...asUser, ...prefix, '/bin/sh', '-c', probe];
    const { stdout } = await run(cmd, args);
    expect(stdout.trim().split('\n')).toEqual(['64', '64', '7', '7', 'REFUSED']);
  });

  it('fails closed where sandbox-exec is missing, but still launches isolation-off servers', async () => {
    const none = seatbeltBackend({ userHome: home, available: () => Promise.resolve(false) });
    const plan = await none.compile(defaultPolicy(), launch, ctx);
    expect(plan.ok).toBe(false);
    if (!plan.ok) {
      expect(plan.error.kind).toBe('unsupported-platform');
      expect(plan.error.remedy).toMatch(/turn isolation off knowingly/);
    }
    const report = await none.probe();
    expect(report.backend).toEqual({ name: 'seatbelt', available: false });
    const off = await none.compile(
      policy((p) => (p.isolation = 'off')),
      launch,
      ctx,
    );
    if (!off.ok) throw new Error(off.error.message);
    expect(off.value.backend).toBe('none');
    expect(off.value.argv).toEqual(['/bin/echo', '-n', 'hi']);
  });
});
