/**
 * Exact argv of the pure bubblewrap builder for a few policies. Nothing here touches the host:
 * the layout and facts are given, so each expected array is the whole command line.
 */
import { describe, expect, it } from 'vitest';
import { type BwrapHost, type BwrapView, bwrapArgs } from './bwrap-args';
import { ETC_ENTRIES } from './filesystem-view';

const layout = {
  systemDirs: [{ path: '/usr' }, { path: '/bin', symlink: 'usr/bin' }],
  procEntries: ['sys', 'kcore', 'acpi'],
};
const host: BwrapHost = {
  bwrapPath: '/usr/bin/bwrap',
  facts: {
    bwrap: { ok: true, path: '/usr/bin/bwrap', version: '0.8.0' },
    prlimitPath: '/usr/bin/prlimit',
    systemdScope: { ok: false, detail: 'none', remedy: 'none' },
  },
  layout,
};
const etcPaths = ['/etc/passwd', '/etc/group'];

function view(change: Partial<BwrapView> = {}): BwrapView {
  return {
    launch: { command: 'server', args: ['--stdio'] },
    home: '/home/u',
    roots: [],
    protectedTargets: [],
    hidden: [],
    limits: { prlimitArgs: [], cgroups: [], scopeProperties: [] },
    extraReadOnly: [],
    extraFds: 0,
    etcPaths,
    hostRuntimeDir: true,
    ...change,
  };
}

const BWRAP = [
  '/usr/bin/bwrap',
  ...['--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts'],
  ...['--unshare-cgroup-try', '--hostname', 'sandbox', '--die-with-parent', '--new-session'],
  ...['--cap-drop', 'ALL', '--disable-userns'],
];
const FDS_AT_3 = ['--seccomp', '3', '--ro-bind-data', '4', '/etc/passwd'];
const FDS_AT_3_TAIL = ['--ro-bind-data', '5', '/etc/group'];
const SYSTEM = [
  ...['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin'],
  ...ETC_ENTRIES.flatMap((e) => ['--ro-bind-try', e, e]),
  ...['--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys'],
  ...['--ro-bind', '/dev/null', '/proc/kcore'],
  ...['--tmpfs', '/proc/acpi', '--remount-ro', '/proc/acpi'],
];
const PRIVATE = [
  ...['--dev', '/dev', '--tmpfs', '/dev/shm', '--remount-ro', '/dev'],
  ...['--tmpfs', '/tmp', '--tmpfs', '/home/u'],
];

/** The whole argv of a plain launch: `binds` after the private mounts, then the command. */
const whole = (binds: string[], cwd: string, inner: string[]) => [
  ...BWRAP,
  ...FDS_AT_3,
  ...FDS_AT_3_TAIL,
  ...SYSTEM,
  ...PRIVATE,
  ...binds,
  ...['--remount-ro', '/', '--chdir', cwd, '--', ...inner],
];

describe('bwrapArgs', () => {
  it('a read-only root, no network, no limits', () => {
    const argv = bwrapArgs(view({ roots: [{ path: '/srv/data', access: 'read' }] }), host);
    expect(argv).toEqual(
      whole(['--ro-bind', '/srv/data', '/srv/data'], '/home/u', ['server', '--stdio']),
    );
  });

  it('a writable root with a read-only one inside, started in it, with hidden and protected paths', () => {
    const argv = bwrapArgs(
      view({
        launch: { command: '/srv/app/run', args: [], cwd: '/srv/app' },
        roots: [
          { path: '/srv/app', access: 'write' },
          { path: '/srv/app/vendor', access: 'read' },
        ],
        protectedTargets: [{ path: '/srv/app/.warden', directory: true }],
        hidden: [
          { path: '/srv/app/.env', directory: false },
          { path: '/srv/app/.ssh', directory: true },
        ],
      }),
      host,
    );
    const binds = [
      ...['--bind', '/srv/app', '/srv/app', '--ro-bind', '/srv/app/vendor', '/srv/app/vendor'],
      ...['--tmpfs', '/srv/app/.warden'],
      ...['--ro-bind', '/dev/null', '/srv/app/.env'],
      ...['--tmpfs', '/srv/app/.ssh', '--remount-ro', '/srv/app/.ssh'],
    ];
    expect(argv).toEqual(whole(binds, '/srv/app', ['/srv/app/run']));
  });

  it('pins the folders that hold a path masked by its declared path, before nested roots', () => {
    // Warden's state and ~/.config/gh deep in a writable home, a read-only root in between;
    // a .env found by its name is masked where it is, and what holds it is not pinned.
    const argv = bwrapArgs(
      view({
        roots: [
          { path: '/home/ada', access: 'write' },
          { path: '/home/ada/.config/vendor', access: 'read' },
        ],
        protectedTargets: [{ path: '/home/ada/.config/mcp-warden', directory: true, byPath: true }],
        hidden: [
          { path: '/home/ada/.config/gh', directory: true, byPath: true },
          { path: '/home/ada/.config/vendor/keys/id', directory: false, byPath: true },
          { path: '/home/ada/work/app/.env', directory: false },
        ],
      }),
      host,
    );
    const binds = [
      ...['--bind', '/home/ada', '/home/ada', '--bind', '/home/ada/.config', '/home/ada/.config'],
      ...['--ro-bind', '/home/ada/.config/vendor', '/home/ada/.config/vendor'],
      ...['--tmpfs', '/home/ada/.config/mcp-warden'],
      ...['--tmpfs', '/home/ada/.config/gh', '--remount-ro', '/home/ada/.config/gh'],
      ...['--ro-bind', '/dev/null', '/home/ada/.config/vendor/keys/id'],
      ...['--ro-bind', '/dev/null', '/home/ada/work/app/.env'],
    ];
    expect(argv).toEqual(whole(binds, '/home/u', ['server', '--stdio']));
  });

  it('binds workspace files read-only like roots, depth first, pins what holds them', () => {
    // A credential folder hidden by its path inside .claude pins nothing there (read-only already).
    const argv = bwrapArgs(
      view({
        roots: [
          { path: '/p', access: 'write' },
          { path: '/p/.claude/memory', access: 'write' },
        ],
        hidden: [
          { path: '/p/.claude/.env', directory: false },
          { path: '/p/.claude/keys/k', directory: false, byPath: true },
        ],
        workspace: [
          { path: '/p/.claude', directory: true, name: '.claude' },
          { path: '/p/.git', directory: true, name: '.git' },
          { path: '/p/sub/.mcp.json', directory: false, name: '.mcp.json' },
        ],
      }),
      host,
    );
    const binds = [
      ...['--bind', '/p', '/p', '--ro-bind', '/p/.claude', '/p/.claude'],
      ...['--ro-bind', '/p/.git', '/p/.git', '--bind', '/p/sub', '/p/sub'],
      ...['--bind', '/p/.claude/memory', '/p/.claude/memory'],
      ...['--ro-bind', '/p/sub/.mcp.json', '/p/sub/.mcp.json'],
      ...['--ro-bind', '/dev/null', '/p/.claude/.env'],
      ...['--ro-bind', '/dev/null', '/p/.claude/keys/k'],
    ];
    expect(argv).toEqual(whole(binds, '/home/u', ['server', '--stdio']));
  });

  it('a proxied network: the channel on fd 3 moves the seccomp fd, the init runs first', () => {
    const argv = bwrapArgs(
      view({
        extraFds: 1,
        wrapper: { argv: ['/usr/bin/node', '/opt/w/init.cjs'] },
        extraReadOnly: [
          { real: '/opt/w', asked: '/opt/w' },
          { real: '/opt/node-v20/bin', asked: '/usr/local/node/bin' },
        ],
      }),
      host,
    );
    expect(argv).toEqual([
      ...BWRAP,
      ...['--seccomp', '4', '--ro-bind-data', '5', '/etc/passwd'],
      ...['--ro-bind-data', '6', '/etc/group'],
      ...SYSTEM,
      ...PRIVATE,
      ...['--ro-bind', '/opt/w', '/opt/w'],
      ...['--ro-bind', '/opt/node-v20/bin', '/opt/node-v20/bin'],
      ...['--ro-bind-try', '/opt/node-v20/bin', '/usr/local/node/bin'],
      ...['--remount-ro', '/', '--chdir', '/home/u', '--'],
      ...['/usr/bin/node', '/opt/w/init.cjs', '--', 'server', '--stdio'],
    ]);
  });

  it('a memory limit sizes the tmpfs mounts and prlimit runs inside; an old bwrap gets no --disable-userns', () => {
    const old: BwrapHost = {
      ...host,
      facts: { ...host.facts, bwrap: { ok: true, path: '/usr/bin/bwrap', version: '0.6.1' } },
    };
    const argv = bwrapArgs(
      view({
        limits: {
          prlimitArgs: ['--as=1073741824', '--nofile=100'],
          cgroups: [],
          scopeProperties: [],
          tmpfsBytes: 1000,
        },
      }),
      old,
    );
    expect(argv).toEqual([
      ...BWRAP.filter((a) => a !== '--disable-userns'),
      ...FDS_AT_3,
      ...FDS_AT_3_TAIL,
      ...SYSTEM,
      ...['--dev', '/dev', '--size', '250', '--tmpfs', '/dev/shm', '--remount-ro', '/dev'],
      ...['--size', '500', '--tmpfs', '/tmp', '--size', '250', '--tmpfs', '/home/u'],
      ...['--remount-ro', '/', '--chdir', '/home/u', '--'],
      ...['/usr/bin/prlimit', '--as=1073741824', '--nofile=100', '--', 'server', '--stdio'],
    ]);
  });

  it('a systemd scope wraps bwrap, and the runtime folder it needed is unset inside', () => {
    const scoped: BwrapHost = {
      ...host,
      facts: {
        ...host.facts,
        systemdScope: {
          ok: true,
          detail: 'ok',
          systemdRun: '/usr/bin/systemd-run',
          runtimeDir: '/run/user/1000',
        },
      },
    };
    const argv = bwrapArgs(
      view({
        limits: { prlimitArgs: [], cgroups: [], scopeProperties: ['TasksMax=64'] },
        hostRuntimeDir: false,
      }),
      scoped,
    );
    const bwrapAt = argv.indexOf('/usr/bin/bwrap');
    expect(argv.slice(0, 2)).toEqual(['/usr/bin/env', 'XDG_RUNTIME_DIR=/run/user/1000']);
    expect(argv.slice(bwrapAt)).toEqual([
      ...BWRAP,
      ...FDS_AT_3,
      ...FDS_AT_3_TAIL,
      ...['--unsetenv', 'XDG_RUNTIME_DIR'],
      ...SYSTEM,
      ...PRIVATE,
      ...['--remount-ro', '/', '--chdir', '/home/u', '--', 'server', '--stdio'],
    ]);
  });

  it('takes no environment: values never reach the command line', () => {
    const argv = bwrapArgs(view(), host);
    expect(argv).not.toContain('--setenv');
    expect(argv.filter((a) => a.includes('='))).toEqual([]);
  });
});
