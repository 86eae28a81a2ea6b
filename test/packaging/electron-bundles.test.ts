/**
 * The Electron entry points bundle as the app ships them: the sandboxed preload must need nothing
 * at runtime but 'electron' (a sandboxed preload cannot require anything else), and the main
 * process bundle must build with electron left external.
 */
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function bundle(entry: string, packages: 'external' | undefined) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['electron'],
    ...(packages ? { packages } : {}),
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text ?? '';
  const required = new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
  return { text, required };
}

describe('Electron bundles', () => {
  it('the preload requires only electron once its imports are inlined', async () => {
    const { text, required } = await bundle('main/electron/preload.ts', undefined);
    expect([...required]).toEqual(['electron']);
    expect(text).toContain('exposeInMainWorld("warden"');
    expect(text).toContain('warden:call');
  });

  it('the main process bundles with electron external and needs only shipped dependencies', async () => {
    const { required } = await bundle('main/electron/electron-main.ts', 'external');
    expect(required.has('electron')).toBe(true);
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // electron-builder packs `dependencies` only: anything else would be missing at runtime.
    for (const name of required as Set<string>) {
      if (name === 'electron' || name.startsWith('node:')) continue;
      const root = name.startsWith('@')
        ? name.split('/').slice(0, 2).join('/')
        : name.split('/')[0]!;
      expect(Object.keys(pkg.dependencies), name).toContain(root);
    }
  });
});
