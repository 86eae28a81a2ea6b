/**
 * The deb/rpm install scripts and the AppArmor profile they install for bubblewrap: shellcheck
 * (required in CI), and a dry run in a temporary root (WARDEN_PACKAGE_ROOT) with a stand-in for
 * apparmor_parser that records its arguments: the profile installed and loaded after install on
 * a host with the user-namespace restriction, untouched where there is none, and unloaded and
 * removed after uninstall but kept across an upgrade.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BWRAP } from '../../main/sandbox/linux/probe';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '../..');
const scripts = join(repo, 'resources/packaging/linux');
const profileSource = join(scripts, 'apparmor/mcp-warden-bwrap');
const shellcheck = spawnSync('shellcheck', ['--version']).status === 0;
/** test/landlock/run-suite.sh installs shellcheck in CI and sets this: there, a skip fails. */
const required = process.env.WARDEN_REQUIRE_SHELLCHECK === '1';

describe('packaging scripts', () => {
  it.skipIf(!shellcheck)(
    `pass shellcheck${shellcheck ? '' : ' (skipped: shellcheck is not installed; test/landlock/run-suite.sh installs it)'}`,
    async () => {
      const files = ['after-install.sh', 'after-remove.sh'].map((f) => join(scripts, f));
      files.push(join(repo, 'test/landlock/run-suite.sh'));
      await expect(run('shellcheck', ['--severity=style', ...files])).resolves.toBeDefined();
    },
  );

  it.skipIf(shellcheck || !required)('has shellcheck where WARDEN_REQUIRE_SHELLCHECK=1', () => {
    expect.fail('shellcheck is missing: sudo apt install shellcheck');
  });

  it('the profile grants user namespaces to the bubblewrap Warden runs, and nothing else', async () => {
    const text = await readFile(profileSource, 'utf8');
    const rules = text
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
      .map((l) => l.trim());
    expect(rules).toEqual([
      'abi <abi/4.0>,',
      'include <tunables/global>',
      `profile mcp-warden-bwrap ${DEFAULT_BWRAP} flags=(unconfined) {`,
      'userns,',
      'include if exists <local/mcp-warden-bwrap>',
      '}',
    ]);
  });
});

describe('packaging scripts: dry run in a temporary root', () => {
  let root = '';
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A root as a package manager leaves it just after unpacking the app. */
  async function unpacked(restricted: boolean) {
    root = await mkdtemp(join(tmpdir(), 'warden-pkg-'));
    const app = join(root, 'opt/MCP Warden');
    for (const d of [
      'usr/bin',
      'etc/apparmor.d',
      'sys/kernel/security/apparmor',
      'proc/sys/kernel',
    ])
      await mkdir(join(root, d), { recursive: true });
    await mkdir(join(app, 'resources/apparmor'), { recursive: true });
    await copyFile(profileSource, join(app, 'resources/apparmor/mcp-warden-bwrap'));
    await writeFile(join(app, 'chrome-sandbox'), '');
    if (restricted)
      await writeFile(join(root, 'proc/sys/kernel/apparmor_restrict_unprivileged_userns'), '1\n');
    const parser = join(root, 'apparmor_parser');
    await writeFile(parser, `#!/bin/sh\necho "$*" >> '${join(root, 'parser.log')}'\n`);
    await chmod(parser, 0o755);
    const env = { ...process.env, WARDEN_PACKAGE_ROOT: root, APPARMOR_PARSER: parser };
    const script = (name: string) => run('/bin/sh', [join(scripts, name)], { env });
    const log = () => readFile(join(root, 'parser.log'), 'utf8').catch(() => '');
    const installed = join(root, 'etc/apparmor.d/mcp-warden-bwrap');
    return { app, script, log, installed };
  }

  it('installs and loads the profile, then unloads and removes it on uninstall', async () => {
    const { app, script, log, installed } = await unpacked(true);
    await script('after-install.sh');
    expect(await readFile(installed, 'utf8')).toBe(await readFile(profileSource, 'utf8'));
    expect(await log()).toBe(`-r -W ${installed}\n`);
    // An upgrade: the app is still there, so the profile stays.
    await script('after-remove.sh');
    expect(await readFile(installed, 'utf8')).toContain('userns,');
    await rm(app, { recursive: true });
    await script('after-remove.sh');
    await expect(readFile(installed)).rejects.toThrow(/ENOENT/);
    expect(await log()).toBe(`-r -W ${installed}\n-R ${installed}\n`);
  });

  it('installs nothing where AppArmor does not restrict user namespaces', async () => {
    const { script, log, installed } = await unpacked(false);
    await script('after-install.sh');
    await expect(readFile(installed)).rejects.toThrow(/ENOENT/);
    expect(await log()).toBe('');
  });
});
