import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Unit, integration and sandbox tests run in plain Node; component tests (`*.test.tsx` under
// test/renderer) ask for a DOM with a `// @vitest-environment jsdom` first line. The cache lives
// in the temp dir so that the suite can also run as an unprivileged user over a checkout owned by
// root.
export default defineConfig({
  cacheDir: join(tmpdir(), `mcp-warden-vitest-cache-${process.getuid?.() ?? 'user'}`),
  test: {
    include: [
      'app/**/*.test.ts',
      'main/**/*.test.ts',
      'test/**/*.test.ts',
      'test/renderer/**/*.test.tsx',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
