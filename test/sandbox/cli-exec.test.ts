/**
 * The real `warden` binary (node bin/warden.js, built by `npm run build`): `warden exec` passes
 * stdio through, exits with the command's status, refuses what it cannot enforce with 125 and a
 * remedy, and keeps the home's credentials out; `warden doctor --json` reports this host.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctorReportSchema } from '../../app/contract/doctor';
import { type Fixture, makeFixture, sandboxRequired, sandboxStatus } from './harness';
import { runWarden } from '../helpers/warden-bin';

const status = await sandboxStatus();
const root = join(import.meta.dirname, '..', '..');
const built = existsSync(join(root, 'out', 'cli', 'warden.mjs'));

describe('warden binary', () => {
  it.skipIf(built || !sandboxRequired)('is built when the sandbox suite is required', () => {
    expect.fail('out/cli/warden.mjs is missing: run npm run build before the sandbox suite');
  });
});

describe.skipIf(!status.usable || !built)('warden exec and doctor, through the binary', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture();
  });
  afterAll(() => f.cleanup());

  it('keeps credentials out; reads a declared root', async () => {
    const escape = await runWarden(
      ['exec', '--', 'cat', join(f.home, '.ssh', 'id_ed25519')],
      f.hostEnv,
    );
    expect(escape.code).toBe(1);
    expect(escape.stdout).toBe('');
    expect(escape.stderr).toContain('No such file');
    const control = await runWarden(
      ['exec', '--ro', f.ro, '--', 'cat', join(f.ro, 'readable.txt')],
      f.hostEnv,
    );
    expect(control).toMatchObject({ code: 0, stdout: 'ro-content\n' });
  });

  it('passes stdin through and exits with the command status', async () => {
    const echo = await runWarden(['exec', '--', 'cat'], f.hostEnv, 'piped in\n');
    expect(echo).toMatchObject({ code: 0, stdout: 'piped in\n' });
    const seven = await runWarden(['exec', '--', 'sh', '-c', 'exit 7'], f.hostEnv);
    expect(seven.code).toBe(7);
    const killed = await runWarden(['exec', '--', 'sh', '-c', 'kill -TERM $$'], f.hostEnv);
    expect(killed.code).toBe(143);
  });

  it('refuses what it cannot enforce with 125 and a remedy', async () => {
    const r = await runWarden(['exec', '--ro', join(f.base, 'missing'), '--', 'true'], f.hostEnv);
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/launch refused \(root-invalid\)[\s\S]*remedy: create/);
  });

  it('--resolve pins a name for curl inside; a name not allowed is refused, loopback needs --allow-address', async () => {
    const server = createServer((_req, res) => res.end('hello from the host\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const url = `http://api.test:${port}/`;
      const base = [
        'exec',
        '--net',
        'allowlist',
        '--allow',
        'api.test',
        '--resolve',
        'api.test:127.0.0.1',
      ];
      const ok = await runWarden(
        [...base, '--allow-address', '127.0.0.1', '--', 'curl', '-sS', url],
        f.hostEnv,
      );
      expect(ok).toMatchObject({ code: 0, stdout: 'hello from the host\n' });
      const loopback = await runWarden(
        [...base, '--', 'curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', url],
        f.hostEnv,
      );
      expect(loopback.stdout).toBe('403');
      expect(loopback.stderr).toMatch(/--allow-address/);
      const other = await runWarden(
        [
          ...base,
          '--allow-address',
          '127.0.0.1',
          '--resolve',
          'other.test:127.0.0.1',
          '--',
          'curl',
          '-sS',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          `http://other.test:${port}/`,
        ],
        f.hostEnv,
      );
      expect(other.stdout).toBe('403');
      const bad = await runWarden(['exec', '--resolve', 'nonsense', '--', 'true'], f.hostEnv);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^warden: --resolve: expected NAME:ADDR/);
    } finally {
      server.close();
    }
  });

  it('doctor --json reports an available bubblewrap backend', async () => {
    const r = await runWarden(['doctor', '--json'], f.hostEnv);
    expect(r.code).toBe(0);
    const report = doctorReportSchema.parse(JSON.parse(r.stdout));
    expect(report.backend).toMatchObject({ name: 'bwrap', available: true });
  });
});
