import react from '@vitejs/plugin-react';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vite';

// The renderer is built to out/renderer and served by `warden serve` over http://127.0.0.1 or
// loaded by Electron from disk, hence relative asset paths. The CSP in index.html forbids inline
// scripts, so the build must not emit any (Vite's production build does not).
export default defineConfig({
  root: resolve(import.meta.dirname, 'renderer'),
  base: './',
  cacheDir: join(tmpdir(), 'mcp-warden-vite-cache'),
  plugins: [react()],
  build: {
    outDir: resolve(import.meta.dirname, 'out/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    modulePreload: { polyfill: false },
    rollupOptions: {
      // zod's sources carry comments that rollup cannot place; harmless, and not ours to fix.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
});
