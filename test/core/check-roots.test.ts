/**
 * `host.checkRoots` answers, for each folder the policy editor lists, what a launch on this host
 * would find: usable, or the refusal the launch would give (missing, a symlink to somewhere else,
 * Warden's own state). Checked with the backends of each platform, since the check is theirs.
 */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rootCheckSchema } from '../../app/contract/doctor';
import { createCore } from '../../main/core/core';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { seatbeltBackend } from '../../main/sandbox/macos/seatbelt-backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { usableHostFacts } from '../helpers/host-facts';
import { tempDirEach } from '../helpers/temp-dir';

let base = '';
let home: string;
let real: string;
let link: string;
let missing: string;
tempDirEach('warden-check-roots-', (d) => (base = d));
beforeEach(async () => {
  home = join(base, 'warden-home');
  real = join(base, 'project');
  link = join(base, 'link-to-project');
  missing = join(base, 'not-there');
  await mkdir(real);
  await mkdir(home);
  await symlink(real, link);
});

describe('host.checkRoots through the core', () => {
  it('says which folders a launch would take and why it would refuse the others', async () => {
    const backend = bwrapBackend({ protectedPaths: [home], facts: usableHostFacts() });
    const core = await createCore({ wardenHome: home, backend });
    try {
      const inside = join(home, 'audit');
      await mkdir(inside);
      const checks = await core.handle('host.checkRoots', {
        paths: [real, missing, link, inside],
      });
      if (!checks.ok) throw new Error(checks.error.message);
      const [usable, absent, symlinked, own] = z.array(rootCheckSchema).parse(checks.value);
      expect(usable).toEqual({ path: real, ok: true, resolved: real });
      expect(absent).toMatchObject({ ok: false, message: `root "${missing}" does not exist` });
      expect(absent?.ok === false && absent.remedy).toContain(`create ${missing}`);
      expect(symlinked).toMatchObject({
        ok: false,
        message: `root "${link}" resolves to ${real} through a symlink`,
      });
      expect(own).toMatchObject({ ok: false });
      expect(own?.ok === false && own.message).toContain("Warden's own state folder");
    } finally {
      await core.close();
    }
  });

  it('refuses input that is not a list of paths, as every contract call does', async () => {
    const core = await createCore({ wardenHome: home, backend: unsandboxedBackend() });
    try {
      const bad = await core.handle('host.checkRoots', { paths: [''] });
      expect(bad.ok).toBe(false);
    } finally {
      await core.close();
    }
  });
});

describe('checkRoot of each backend', () => {
  it('macOS: the same answers, and the credentials folders are never usable', async () => {
    const backend = seatbeltBackend({ userHome: base, protectedPaths: [home] });
    expect(await backend.checkRoot(real)).toEqual({ ok: true, value: real });
    expect(await backend.checkRoot(missing)).toMatchObject({
      ok: false,
      error: { kind: 'root-invalid', message: `root "${missing}" does not exist` },
    });
    expect(await backend.checkRoot(link)).toMatchObject({ ok: false });
    await mkdir(join(base, '.ssh'));
    const ssh = await backend.checkRoot(join(base, '.ssh'));
    expect(ssh.ok === false && ssh.error.message).toContain('never exposed to a server');
  });

  it('no sandbox: a folder only has to exist', async () => {
    const backend = unsandboxedBackend();
    expect(await backend.checkRoot(link)).toEqual({ ok: true, value: real });
    expect(await backend.checkRoot(missing)).toMatchObject({ ok: false });
  });
});
