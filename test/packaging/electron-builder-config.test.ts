/**
 * The electron-builder configuration, checked without electron-builder or the Electron binary:
 * targets, the deb's bubblewrap dependency, release fuses, the files that must ship, and every
 * file the configuration points at (icons, install scripts, CLI launchers).
 */
import { execFile } from 'node:child_process';
import {
  access,
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);

interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  extraResources: { from: string; to: string }[];
  electronFuses: Record<string, boolean>;
  linux: { target: string[]; executableName: string; icon: string };
  deb: { depends: string[]; afterInstall: string; afterRemove: string };
  rpm: { depends: string[]; afterInstall: string; afterRemove: string };
  mac: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
}

const config = parse(await readFile('electron-builder.yml', 'utf8')) as BuilderConfig;
const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { main: string };

/** Width and height of a PNG, after checking its signature, chunk CRCs and image data. */
function pngSize(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(buf.subarray(12, 16).toString('ascii')).toBe('IHDR');
  let at = 8;
  const idat: Buffer[] = [];
  for (;;) {
    const len = buf.readUInt32BE(at);
    const type = buf.subarray(at + 4, at + 8).toString('ascii');
    const body = buf.subarray(at + 4, at + 8 + len);
    let c = 0xffffffff;
    for (const b of body) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    expect(buf.readUInt32BE(at + 8 + len), `${type} CRC`).toBe((c ^ 0xffffffff) >>> 0);
    if (type === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + len));
    at += 12 + len;
    if (type === 'IEND') break;
  }
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  expect(inflateSync(Buffer.concat(idat)).length).toBe(height * (width * 4 + 1));
  return { width, height };
}

describe('electron-builder.yml', () => {
  it('builds AppImage, deb and rpm for Linux, dmg for macOS, nsis for Windows', () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/);
    expect(config.productName).toBe('MCP Warden');
    expect(config.linux.target).toEqual(['AppImage', 'deb', 'rpm']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('makes the deb and rpm depend on bubblewrap, the Linux sandbox', () => {
    expect(config.deb.depends).toContain('bubblewrap');
    expect(config.rpm.depends).toContain('bubblewrap');
    // An explicit list replaces electron-builder's defaults, so they must be listed as well.
    expect(config.deb.depends).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3']));
  });

  it('sets the release fuses, keeping runAsNode for the sandbox init only', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: true,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: true,
    });
    expect(config.asar).toBe(true);
  });

  it('ships the built app, CLI, sandbox init and icons, and no source maps', () => {
    for (const glob of [
      'package.json',
      'out/electron/**',
      'out/renderer/**',
      'out/cli/**',
      'out/sandbox-init/**',
      'resources/icons/**',
      '!**/*.map',
    ]) {
      expect(config.files).toContain(glob);
    }
    expect(pkg.main).toBe('out/electron/main.cjs');
    expect(config.asarUnpack).toContain('out/sandbox-init/**');
  });

  it('points at icons that exist and are valid PNGs of the right size', async () => {
    for (const [path, size] of [
      [config.linux.icon, 512],
      [config.mac.icon, 512],
      [config.win.icon, 256],
      ['resources/icons/tray/tray-16.png', 16],
      ['resources/icons/tray/tray-32.png', 32],
      ['resources/icons/tray/trayTemplate.png', 16],
      ['resources/icons/tray/trayTemplate@2x.png', 32],
    ] as const) {
      expect(pngSize(await readFile(path)), path).toEqual({ width: size, height: size });
    }
  });

  it('points at install scripts and CLI launchers that exist and parse', async () => {
    for (const script of [
      config.deb.afterInstall,
      config.deb.afterRemove,
      config.rpm.afterInstall,
      config.rpm.afterRemove,
    ]) {
      await run('sh', ['-n', script]);
    }
    const install = await readFile(config.deb.afterInstall, 'utf8');
    expect(install).toContain('/usr/bin/warden');
    expect(install).toContain(`/usr/bin/${config.linux.executableName}`);
    const bin = config.extraResources.find((r) => r.to === 'bin');
    expect(bin).toBeDefined();
    await access(join(bin!.from, 'warden'));
    await access(join(bin!.from, 'warden.cmd'));
    // The door the Unix launcher sources, beside it.
    const door = config.extraResources.find((r) => r.to === 'bin/warden-door.sh');
    expect(door?.from).toBe('bin/warden-door.sh');
    await run('sh', ['-n', door!.from]);
  });

  it('the warden launcher runs the bundled CLI with the app runtime in Node mode', async () => {
    // An installed layout: <dir>/mcp-warden (the app) and <dir>/resources/bin/warden, reached
    // through a symlink on the PATH as the deb's post-install creates it.
    const dir = await mkdtemp(join(tmpdir(), 'warden-launcher-'));
    await mkdir(join(dir, 'opt', 'resources', 'bin'), { recursive: true });
    await mkdir(join(dir, 'usr-bin'));
    const launcher = join(dir, 'opt', 'resources', 'bin', 'warden');
    await copyFile('resources/packaging/bin/warden', launcher);
    await copyFile('bin/warden-door.sh', join(dir, 'opt', 'resources', 'bin', 'warden-door.sh'));
    await chmod(launcher, 0o755);
    const app = join(dir, 'opt', 'mcp-warden');
    await writeFile(
      app,
      '#!/bin/sh\necho "RUN_AS_NODE=$ELECTRON_RUN_AS_NODE"\nfor a; do echo "$a"; done\n',
    );
    await chmod(app, 0o755);
    await symlink(launcher, join(dir, 'usr-bin', 'warden'));
    const { stdout } = await run(join(dir, 'usr-bin', 'warden'), ['audit', 'verify', 'a b']);
    expect(stdout.split('\n')).toEqual([
      'RUN_AS_NODE=1',
      join(dir, 'opt', 'resources', 'app.asar', 'out', 'cli', 'warden.mjs'),
      'audit',
      'verify',
      'a b',
      '',
    ]);
  });
});
