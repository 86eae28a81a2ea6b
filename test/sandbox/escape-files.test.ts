/**
 * Escape suite, filesystem: credentials in the user's home, files only their owner or root may
 * read, writes outside the writable roots, and symlinks or `..` planted in a writable root. Every
 * refused escape sits beside a positive control that does the same thing on a declared root.
 */
import { chown, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Fixture,
  CREDENTIALS,
  isRoot,
  makeFixture,
  sandboxRequired,
  sandboxStatus,
  sh,
  wardenExec,
} from './harness';

const status = await sandboxStatus();
/** Landlock refuses in place (Permission denied) what bubblewrap's view does not contain. */
const landlock = status.backend === 'landlock';

describe('linux sandbox availability', () => {
  it.skipIf(status.usable || !sandboxRequired)('is required by WARDEN_REQUIRE_SANDBOX=1', () => {
    expect.fail(`the sandbox cannot run here: ${status.reason}`);
  });
});

describe.skipIf(!status.usable)('escape: filesystem', () => {
  let f: Fixture;
  let roots: string[];
  beforeAll(async () => {
    f = await makeFixture();
    roots = ['--ro', f.ro, '--rw', f.rw];
  });
  afterAll(() => f.cleanup());

  it('cannot read credentials in the home; can read a declared root', async () => {
    for (const rel of CREDENTIALS) {
      const escape = await sh(roots, `cat ${join(f.home, rel)}`, f.hostEnv);
      expect(escape.code, rel).not.toBe(0);
      expect(escape.stdout).not.toContain('credential');
    }
    const home = await sh(roots, 'ls -A "$HOME"; echo "home=$HOME"', f.hostEnv);
    if (landlock) {
      // The private folder, empty, not the host's home path.
      expect(home.code).toBe(0);
      expect(home.stdout).toMatch(/^home=\/\S+\/warden-exec-\w+\/home\n$/);
    } else {
      expect(home).toMatchObject({ code: 0, stdout: `home=${f.home}\n` });
    }
    const control = await sh(roots, `cat ${f.ro}/readable.txt`, f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'ro-content\n' });
  });

  it('the real home, the runtime dir, /run and other users are not there at all', async () => {
    const r = await sh(
      roots,
      'ls -A /root /home /run /var /sys /etc/shadow /etc/ssh /etc/ssl/private 2>&1',
      f.hostEnv,
    );
    // /etc/ssl/private holds host keys that root, and so a sandbox root started, could read.
    const gone = ['/run', '/var', '/sys', '/etc/shadow', '/etc/ssh', '/etc/ssl/private'];
    gone.push(isRoot ? '/home' : '/root');
    expect(r.stdout).not.toMatch(/cloudsdk|\.bashrc|\.ssh|\.profile/);
    if (landlock) {
      // The paths exist on the host and are listed by name, but nothing in them can be read.
      const read = await sh(
        roots,
        `for p in ${gone.filter((p) => p !== '/etc/shadow').join(' ')}; do ls -A $p; done 2>&1; cat /etc/shadow 2>&1`,
        f.hostEnv,
      );
      for (const path of gone.filter((p) => p !== '/etc/shadow'))
        expect(read.stdout).toContain(`'${path}': Permission denied`);
      expect(read.stdout).toContain('/etc/shadow: Permission denied');
      expect(read.stdout).not.toMatch(/cloudsdk|\.bashrc|\.ssh|\.profile|root:/);
      // HOME's parent is the instance's private folder, itself not listable.
      const parent = await sh(roots, 'ls -A "$(dirname "$HOME")"', f.hostEnv);
      expect(parent).toMatchObject({ code: 2, stdout: '' });
      expect(parent.stderr).toContain('Permission denied');
      return;
    }
    for (const path of gone) expect(r.stdout).toContain(`'${path}': No such file`);
    // The real home holds only the (empty) sandbox home's mount point.
    const parent = await sh(roots, 'ls -A "$(dirname "$HOME")"', f.hostEnv);
    expect(parent).toMatchObject({ code: 0, stdout: `${f.home.split('/').pop()}\n` });
  });

  it('cannot read a file only its owner may read, even inside a declared root', async () => {
    let secret: string;
    if (isRoot) {
      // Root keeps no capability inside: a file of another user with mode 0600 stays closed.
      secret = join(f.ro, 'nobody-only.txt');
      await writeFile(secret, 'owner-only\n', { mode: 0o600 });
      await chown(secret, 65534, 65534);
    } else {
      secret = '/etc/shadow';
    }
    const escape = await sh(['--ro', secret, '--ro', f.ro], `cat ${secret}`, f.hostEnv);
    expect(escape.code).not.toBe(0);
    expect(escape.stderr).toMatch(/Permission denied/);
    const mine = join(f.ro, 'mine-only.txt');
    await writeFile(mine, 'mine\n', { mode: 0o600 });
    const control = await sh(['--ro', f.ro], `cat ${mine}`, f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'mine\n' });
  });

  it('cannot write outside the writable roots; can write inside them', async () => {
    const targets = [
      join(f.ro, 'new.txt'),
      join(f.outside, 'new.txt'),
      join(f.ro, 'readable.txt'),
      '/usr/warden-escape.txt',
      '/etc/warden-escape.txt',
      '/warden-escape.txt',
      join(f.home, '.ssh', 'authorized_keys'),
    ];
    for (const target of targets) {
      await sh(roots, `mkdir -p $(dirname ${target}); echo pwned > ${target}`, f.hostEnv);
      const after = await readFile(target, 'utf8').catch(() => undefined);
      expect(after, target).not.toBe('pwned\n');
    }
    // Even the sandbox's own root and /etc refuse writes (only /tmp and the home are scratch).
    const own = await sh(
      roots,
      'for p in /x /etc/x /usr/x; do { echo x > $p; } 2>/dev/null && echo wrote $p; done; true',
      f.hostEnv,
    );
    expect(own).toMatchObject({ code: 0, stdout: '' });
    const control = await sh(
      roots,
      `echo written > ${f.rw}/new.txt && cat ${f.rw}/new.txt`,
      f.hostEnv,
    );
    expect(control).toMatchObject({ code: 0, stdout: 'written\n' });
    expect(await readFile(join(f.rw, 'new.txt'), 'utf8')).toBe('written\n');
  });

  it('cannot escape through a symlink planted in a writable root', async () => {
    await symlink(join(f.outside, 'secret.txt'), join(f.rw, 'link-to-secret'));
    await symlink(f.outside, join(f.rw, 'link-to-outside'));
    await symlink(join(f.home, '.ssh'), join(f.rw, 'link-to-ssh'));
    const read = await sh(
      roots,
      `cat ${f.rw}/link-to-secret ${f.rw}/link-to-outside/secret.txt ${f.rw}/link-to-ssh/id_ed25519`,
      f.hostEnv,
    );
    expect(read.code).not.toBe(0);
    expect(read.stdout).not.toMatch(/outside-secret|credential/);
    await sh(roots, `echo pwned > ${f.rw}/link-to-outside/planted.txt`, f.hostEnv);
    expect(await stat(join(f.outside, 'planted.txt')).catch(() => null)).toBeNull();
    // A link the sandbox makes itself resolves inside the sandbox too.
    await sh(
      roots,
      `ln -s ${f.outside} ${f.rw}/made-inside && echo pwned > ${f.rw}/made-inside/x`,
      f.hostEnv,
    );
    expect(await stat(join(f.outside, 'x')).catch(() => null)).toBeNull();
    // Control: a symlink that stays inside the root works.
    await symlink(join(f.rw, 'existing.txt'), join(f.rw, 'link-inside'));
    const control = await sh(roots, `cat ${f.rw}/link-inside`, f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'rw-content\n' });
  });

  it('cannot climb out of a root with ..', async () => {
    await mkdir(join(f.rw, 'sub'), { recursive: true });
    const escape = await sh(
      roots,
      `cat ${f.rw}/../outside/secret.txt ${f.rw}/sub/../../outside/secret.txt`,
      f.hostEnv,
    );
    expect(escape.code).not.toBe(0);
    expect(escape.stdout).not.toContain('outside-secret');
    const control = await sh(roots, `cat ${f.rw}/sub/../existing.txt`, f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'rw-content\n' });
  });

  it('a writable root nested in a read-only one is writable; its parent stays read-only', async () => {
    await mkdir(join(f.ro, 'inner'), { recursive: true });
    const flags = ['--ro', f.ro, '--rw', join(f.ro, 'inner')];
    const escape = await sh(flags, `echo pwned > ${f.ro}/beside.txt`, f.hostEnv);
    expect(escape.code).not.toBe(0);
    expect(await stat(join(f.ro, 'beside.txt')).catch(() => null)).toBeNull();
    const control = await sh(flags, `echo nested > ${f.ro}/inner/file.txt`, f.hostEnv);
    expect(control.code).toBe(0);
    expect(await readFile(join(f.ro, 'inner', 'file.txt'), 'utf8')).toBe('nested\n');
  });

  it('refuses a command outside every visible folder, naming the folder; runs it once declared', async () => {
    const tool = join(f.outside, 'tool');
    await writeFile(tool, '#!/bin/sh\necho tool-ran\n', { mode: 0o755 });
    const byPath = await wardenExec([], [tool], f.hostEnv);
    expect(byPath.code).toBe(125);
    expect(byPath.stderr).toContain(`--ro ${f.outside}`);
    const byName = await wardenExec([], ['tool'], { ...f.hostEnv, PATH: `${f.outside}:/usr/bin` });
    expect(byName.code).toBe(125);
    expect(byName.stderr).toContain(`give its full path (${tool})`);
    const control = await wardenExec(['--ro', f.outside], [tool], f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'tool-ran\n' });
  });

  it("never shows Warden's own state, even inside a declared root", async () => {
    const state = join(f.rw, 'warden-state');
    await mkdir(state, { recursive: true });
    await writeFile(join(state, 'secrets.json'), 'warden-secret\n');
    const env = { ...f.hostEnv, WARDEN_HOME: state };
    const escape = await sh(['--rw', f.rw], `cat ${state}/secrets.json; ls -A ${state}`, env);
    // bubblewrap shows it empty; Landlock gives it no rule (its names list, nothing reads).
    expect(escape.stdout).toBe(landlock ? 'secrets.json\n' : '');
    await sh(['--rw', f.rw], `echo pwned > ${state}/secrets.json`, env);
    expect(await readFile(join(state, 'secrets.json'), 'utf8')).toBe('warden-secret\n');
    const inside = await sh(['--ro', state], 'true', env);
    expect(inside.code).toBe(125);
    expect(inside.stderr).toContain("inside Warden's own state folder");
    const control = await sh(['--rw', f.rw], `cat ${f.rw}/existing.txt`, env);
    expect(control).toMatchObject({ code: 0, stdout: 'rw-content\n' });
  });

  it('cannot hard-link or move a file from outside into a writable root', async () => {
    const r = await sh(
      roots,
      `ln ${f.outside}/secret.txt ${f.rw}/hard; mv ${f.outside}/secret.txt ${f.rw}/moved; ` +
        `cat ${f.rw}/hard ${f.rw}/moved`,
      f.hostEnv,
    );
    expect(r.stdout).not.toContain('outside-secret');
    expect(await readFile(join(f.outside, 'secret.txt'), 'utf8')).toBe('outside-secret\n');
    const control = await sh(
      roots,
      `ln ${f.rw}/existing.txt ${f.rw}/hard-in && cat ${f.rw}/hard-in`,
      f.hostEnv,
    );
    expect(control).toMatchObject({ code: 0, stdout: 'rw-content\n' });
  });

  it('refuses a root declared through a symlink or a missing path; binds the real path', async () => {
    await symlink(f.outside, join(f.base, 'alias'));
    const viaLink = await sh(['--ro', join(f.base, 'alias')], 'true', f.hostEnv);
    expect(viaLink.code).toBe(125);
    expect(viaLink.stderr).toMatch(/root-invalid.*resolves to/);
    const missing = await sh(['--ro', join(f.base, 'missing')], 'true', f.hostEnv);
    expect(missing.code).toBe(125);
    expect(missing.stderr).toMatch(/root-invalid.*does not exist/);
    const control = await sh(['--ro', f.outside], `cat ${f.outside}/secret.txt`, f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'outside-secret\n' });
  });
});
