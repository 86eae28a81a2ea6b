/**
 * Escape suite, file modes: a server hands the user's identity, or the user's files, to another
 * local user. It copies a program into a folder it may write and makes it set-user-ID (anyone who
 * runs it then runs as the user) or set-group-ID, or makes a file writable by anyone, so that
 * someone else can change it after the server has stopped: a file it may write, or, under
 * Landlock (which does not govern chmod), one it may only read. The filter refuses those bits
 * through every chmod call, and every extended attribute (an access control list grants the same
 * past chmod); the control sets ordinary modes and copies with `cp -a`. It also gives a file to
 * another group the user is in (under Landlock the kernel allows it) or, as root, to another user:
 * chown may name only the sandbox's own. Runs under whichever backend the host gives.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, sh } from './harness';

const status = await sandboxStatus();
// A group this user is in besides its own (CI puts its test user in `users`).
const otherGroup = process.getgroups?.().find((g) => g !== process.getgid?.());
const mode = async (path: string) => (await stat(path)).mode & 0o7777;

// Each of chmod's system calls: chmod(1) uses fchmodat, Python's os.fchmod fchmod.
const FCHMOD = `import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.fchmod(fd, int(sys.argv[2], 8)); print('SET', sys.argv[2])
except OSError as e:
    print('REFUSED', e.errno)`;

// ACLs as the kernel stores them: other may write; a named user (root) may write; and a folder's
// default that makes every new file writable by others.
const SETFACL = `import os, struct, sys
U = 0xffffffff
def acl(*entries):
    return struct.pack('<I', 2) + b''.join(struct.pack('<HHI', *e) for e in entries)
other = acl((1, 6, U), (4, 4, U), (0x20, 6, U))
named = acl((1, 6, U), (2, 6, 0), (4, 4, U), (0x10, 6, U), (0x20, 4, U))
for path in sys.argv[1:]:
    tries = [('access', other), ('access', named)]
    if os.path.isdir(path): tries.append(('default', other))
    for kind, value in tries:
        try:
            os.setxattr(path, 'system.posix_acl_' + kind, value); print('SET', kind)
        except OSError as e:
            print('REFUSED', e.errno)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.setxattr(fd, 'user.note', b'x'); print('SET user')
    except OSError as e:
        print('REFUSED', e.errno)
    print('ATTRS', os.listxattr(path))`;

describe.skipIf(!status.usable)(`escape: file modes (${status.backend})`, () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture();
    await writeFile(join(f.rw, 'fchmod.py'), FCHMOD);
    await writeFile(join(f.rw, 'setfacl.py'), SETFACL);
  });
  afterAll(() => f.cleanup());

  it('cannot make a program set-user-ID or set-group-ID, nor a file writable by anyone', async () => {
    const program = join(f.rw, 'true');
    const r = await sh(
      ['--rw', f.rw],
      `cp /bin/true ${program} && chmod 755 ${program} && echo COPIED; ` +
        `chmod 4755 ${program} && echo SETUID; chmod u+s ${program} && echo U+S; ` +
        `chmod g+s ${program} && echo SETGID; chmod o+w ${program} && echo O+W; ` +
        `chmod 666 ${f.rw}/existing.txt && echo WORLD; ` +
        `python3 ${f.rw}/fchmod.py ${program} 4755; python3 ${f.rw}/fchmod.py ${program} 646`,
      f.hostEnv,
    );
    expect(r.stdout).toBe('COPIED\nREFUSED 1\nREFUSED 1\n');
    expect(r.stderr).toMatch(/operation not permitted/i);
    expect(await mode(program)).toBe(0o755);
    expect(await mode(join(f.rw, 'existing.txt'))).toBe(0o644);
  });

  it('cannot make a file it may only read writable by anyone', async () => {
    const file = join(f.ro, 'readable.txt');
    const before = await mode(file);
    const r = await sh(
      ['--ro', f.ro],
      `chmod 666 ${file} && echo WORLD; chmod o+w ${file}`,
      f.hostEnv,
    );
    expect(r.stdout).toBe('');
    expect(await mode(file)).toBe(before);
  });

  it('cannot grant other users access through an access control list', async () => {
    await mkdir(join(f.rw, 'folder'));
    const targets = [join(f.rw, 'existing.txt'), join(f.rw, 'folder'), join(f.ro, 'readable.txt')];
    const before = await Promise.all(targets.map(mode));
    const r = await sh(
      ['--rw', f.rw, '--ro', f.ro],
      `python3 ${f.rw}/setfacl.py ${targets.join(' ')}; touch ${f.rw}/folder/new && echo NEW`,
      f.hostEnv,
    );
    const refused = (dir: boolean) => `${'REFUSED 95\n'.repeat(dir ? 4 : 3)}ATTRS []\n`;
    expect(r.stdout).toBe(refused(false) + refused(true) + refused(false) + 'NEW\n');
    expect(await Promise.all(targets.map(mode))).toEqual(before);
    expect((await mode(join(f.rw, 'folder', 'new'))) & 0o002).toBe(0);
  });

  it.skipIf(otherGroup === undefined)(
    `cannot give a file to another group the user is in (${otherGroup ?? 'none: the user is in no other group'})`,
    async () => {
      const file = join(f.rw, 'existing.txt');
      const readable = join(f.ro, 'readable.txt');
      const before = await Promise.all([file, readable].map(async (p) => (await stat(p)).gid));
      const r = await sh(
        ['--rw', f.rw, '--ro', f.ro],
        `chgrp ${otherGroup} ${file} && echo GIVEN; chgrp ${otherGroup} ${readable} && echo RO-GIVEN; ` +
          `chown $(id -u):$(id -g) ${file} && echo OWN`,
        f.hostEnv,
      );
      expect(r.stdout).toBe('OWN\n');
      expect(r.stderr).toMatch(/operation not permitted|invalid argument/i);
      expect(await Promise.all([file, readable].map(async (p) => (await stat(p)).gid))).toEqual(
        before,
      );
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'cannot give a file to another user, even as root',
    async () => {
      const file = join(f.rw, 'existing.txt');
      const r = await sh(['--rw', f.rw], `chown 1:1 ${file} && echo GIVEN`, f.hostEnv);
      expect(r.stdout).toBe('');
      expect((await stat(file)).uid).toBe(0);
    },
  );

  it('sets ordinary modes, group write and the sticky bit included', async () => {
    const r = await sh(
      ['--rw', f.rw],
      `cd ${f.rw} && echo x > plain && chmod 700 plain && chmod 664 plain && mkdir shared && ` +
        `chmod 1775 shared && python3 fchmod.py plain 640 && cp -a plain kept && echo DONE`,
      f.hostEnv,
    );
    expect(r.stdout).toBe('SET 640\nDONE\n');
    expect(await mode(join(f.rw, 'plain'))).toBe(0o640);
    expect(await mode(join(f.rw, 'shared'))).toBe(0o1775);
    expect(await mode(join(f.rw, 'kept'))).toBe(0o640);
  });
});
