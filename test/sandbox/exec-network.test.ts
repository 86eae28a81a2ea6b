/**
 * `warden exec` with a network policy: the egress broker is started for the command, a
 * destination outside the allowlist is refused (and the refusal printed), an allowed one is
 * reached through the broker, and `--net none` has no route at all. Node's http and fetch reach
 * the host's loopback only where the policy names it, under bubblewrap and under Landlock alike.
 */
import { existsSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, wardenExec } from './harness';

const status = await sandboxStatus();
const initBuilt = existsSync(
  join(import.meta.dirname, '..', '..', 'out', 'sandbox-init', 'init.cjs'),
);
const hasCurl = existsSync('/usr/bin/curl');

describe.skipIf(!status.usable || !initBuilt || !hasCurl)('warden exec network', () => {
  let f: Fixture;
  let server: Server;
  let url = '';
  let target = '';
  beforeAll(async () => {
    f = await makeFixture();
    server = createServer((_req, res) => res.end('host-http'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    target = `127.0.0.1:${port}`;
    url = `http://${target}/`;
  });
  afterAll(async () => {
    server.close();
    await f.cleanup();
  });
  const curl = () => ['curl', '-s', '--max-time', '5', url];

  it('refuses a destination outside the allowlist; reaches an allowed one', async () => {
    const base = ['--net', 'allowlist', '--allow-address', '127.0.0.1'];
    const escape = await wardenExec(base, curl(), f.hostEnv);
    expect(escape.stdout).not.toContain('host-http');
    expect(escape.stderr).toContain(`warden: refused ${target}`);
    const control = await wardenExec([...base, '--allow', target], curl(), f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'host-http' });
  });

  // Node's http and fetch as a server makes them (through the fetch preload on this Node): the
  // host's loopback through the broker where the policy names it, and never where it does not
  // (the sandbox's own loopback under bubblewrap, the broker's refusal under Landlock).
  const nodeGets = () => [
    'node',
    '-e',
    `const get = (u) => new Promise((done) => require('node:http').get(u, (r) => {
       let b = ''; r.on('data', (d) => (b += d)); r.on('end', () => done(b));
     }).on('error', (e) => done('error ' + e.code)));
     (async () => console.log(await get('${url}'), await fetch('${url}').then(
       (r) => r.text(), (e) => 'error ' + (e.cause?.code ?? e.message))))();`,
  ];

  it("Node's http and fetch reach the host's loopback only where the policy names it", async () => {
    const named = ['--net', 'allowlist', '--allow', target, '--allow-address', '127.0.0.1'];
    const reached = await wardenExec(named, nodeGets(), f.hostEnv);
    expect(reached).toMatchObject({ code: 0, stdout: 'host-http host-http\n' });
    const other = ['--net', 'allowlist', '--allow', 'api.example.com'];
    const escape = await wardenExec(other, nodeGets(), f.hostEnv);
    expect(escape.code).toBe(0);
    expect(escape.stdout).not.toContain('host-http');
    expect(escape.stdout).toMatch(/^error \S+/);
  });

  it('has no route at all with --net none', async () => {
    const r = await wardenExec(['--net', 'none'], curl(), f.hostEnv);
    // curl exit 7: could not connect (no proxy is set and the namespace has no route).
    expect(r.code).toBe(7);
    expect(r.stdout).not.toContain('host-http');
  });
});
