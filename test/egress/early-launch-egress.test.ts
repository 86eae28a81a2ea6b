/**
 * A networked server launched ahead of its one-session core, in the real sandbox: its egress
 * broker decides from the first connection (a destination outside the allowlist is refused before
 * any core exists, and nothing reaches it), the decisions wait for the core, and the audit log then
 * holds them after the launch, in order, whether the session takes the process or stops it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import type { NetworkPolicy, Server } from '../../app/policy/policy-schema';
import { openAuditStore } from '../../main/audit/audit-store';
import { ConfigStore } from '../../main/config/config-store';
import { type EarlyLaunch, launchEarly, launchesAlone } from '../../main/core/early-launch';
import { startStandalone } from '../helpers/standalone-session';
import { sandboxRequired, sandboxStatus } from '../sandbox/harness';

const SCHEMA = 'early-launch-egress-test-schema';
const status = await sandboxStatus();
const skip = !status.usable && !sandboxRequired;

/**
 * Asks the proxy (where HTTP_PROXY says: the sandbox's loopback, or the host's with credentials)
 * for a name outside the allowlist and for the host's test server, one after the other (the
 * outside name first unless ALLOWED_FIRST is set); answers every request line with
 * both statuses once they are known.
 */
const PROBE = `const http = require('node:http');
const proxy = new URL(process.env.HTTP_PROXY);
const login = proxy.username ? { 'proxy-authorization': 'Basic ' + Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64') } : {};
const get = (url) => new Promise((done) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, path: url, headers: login, agent: false }, (res) => {
    res.resume(); res.on('end', () => done(res.statusCode));
  });
  req.on('error', (e) => done(e.code)); req.end();
});
const outside = () => get('http://outside.example/');
const allowed = () => get(process.env.ALLOWED_URL);
const statuses = (async () => process.env.ALLOWED_FIRST
  ? { allowed: await allowed(), outside: await outside() }
  : { outside: await outside(), allowed: await allowed() })();
require('node:readline').createInterface({ input: process.stdin }).on('line', async (l) => {
  const { id } = JSON.parse(l);
  console.log(JSON.stringify({ jsonrpc: '2.0', id, result: await statuses }));
});`;

let home: string;
let site: http.Server;
let port: number;
const hits: string[] = [];
beforeAll(async () => {
  site = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('ok');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-early-egress-'));
  hits.length = 0;
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/**
 * Stores the probe, sandboxed with the test server allowed, as recorded bytes; in `ask` mode it
 * asks for the allowed one first, and the outside name waits for a decision for one second.
 */
async function storeProbe(mode: 'allowlist' | 'ask' = 'allowlist'): Promise<ConfigStore> {
  const config = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
  const policy = defaultPolicy();
  policy.network = {
    ...policy.network,
    mode,
    allow: [`127.0.0.1:${port}`],
    allowAddresses: ['127.0.0.1'],
    askTimeoutSeconds: 1,
  };
  policy.env.set.ALLOWED_URL = { kind: 'plain', value: `http://127.0.0.1:${port}/allowed` };
  if (mode === 'ask') policy.env.set.ALLOWED_FIRST = { kind: 'plain', value: '1' };
  const added = await config.addServer({
    name: 'probe',
    launch: { command: process.execPath, args: ['-e', PROBE] },
    policy,
    acknowledged: true,
  });
  expect(added.ok).toBe(true);
  await config.flush();
  const reread = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
  await reread.flush();
  return reread;
}

/**
 * Launches the probe ahead, waits for its allowed request, then changes the server (a new
 * revision) before any core reads it.
 */
async function launchThenChange(mode: 'allowlist' | 'ask'): Promise<EarlyLaunch> {
  const config = await storeProbe(mode);
  const early = await launchEarly({ wardenHome: home, name: 'probe', schemaId: SCHEMA });
  expect(early).toBeDefined();
  await hit('/allowed');
  // In ask mode the outside name is asked for next: the change comes once it waits.
  if (mode === 'ask') await expect.poll(() => early!.waitingGrants(), { timeout: 10_000 }).toBe(1);
  const changed = await config.updateServer('probe', (s) => ({
    policy: { ...s.policy, idleTimeoutSeconds: 120 },
  }));
  expect(changed.ok).toBe(true);
  await config.flush();
  return early!;
}

/** Waits until the test server has been asked for `url`. */
async function hit(url: string): Promise<void> {
  while (!hits.includes(url)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The events of the audit log of `home`, oldest first. */
async function auditEvents(): Promise<AuditEvent[]> {
  const store = openAuditStore({ path: join(home, 'audit.db') });
  if (!store.ok) throw new Error(store.error.message);
  try {
    expect(store.value.verify()).toMatchObject({ ok: true });
    return (await store.value.query({ limit: 100, server: 'probe' })).rows
      .reverse()
      .map((r) => r.event);
  } finally {
    await store.value.close();
  }
}

/** Runs a standalone session on `early`, asks the probe once, and ends the session. */
async function session(early: EarlyLaunch | undefined) {
  const { stdin, stdout, errors, ran } = startStandalone('probe', home, early);
  const answer = new Promise<string>((resolve) =>
    stdout.once('data', (d: Buffer) => resolve(d.toString())),
  );
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
  const reply = JSON.parse(await answer) as { result: unknown };
  stdin.end();
  expect(await ran).toBe(0);
  expect(errors).toEqual([]);
  return reply.result;
}

const decisions = (events: AuditEvent[]) =>
  events.flatMap((e) =>
    e.kind === 'network.decision' ? [{ host: e.host, decision: e.decision }] : [],
  );

describe('what the launch ahead covers', () => {
  it('an allowlist or ask server launches ahead on Linux', () => {
    const server = {
      name: 's',
      revision: 1,
      launch: { command: 'npx', args: ['-y', 'pkg'] },
      policy: defaultPolicy(),
      acknowledged: true,
    } as Server;
    const network = (mode: NetworkPolicy['mode']): Server => ({
      ...server,
      policy: { ...server.policy, network: { ...server.policy.network, mode } },
    });
    expect(launchesAlone(network('allowlist'), 'linux')).toBe(true);
    expect(launchesAlone(network('ask'), 'linux')).toBe(true);
    expect(launchesAlone(network('allowlist'), 'darwin')).toBe(false);
  });
});

describe.skipIf(skip)(
  `a networked server launched ahead, sandboxed${skip ? ` (skipped: ${status.reason})` : ''}`,
  () => {
    it('refuses what the allowlist does not name before the core exists, and records it after the launch', async () => {
      await storeProbe();
      const early = await launchEarly({ wardenHome: home, name: 'probe', schemaId: SCHEMA });
      expect(early).toBeDefined();
      // Both connections are decided (the refused one first) before any core is built.
      await hit('/allowed');
      expect(await session(early)).toEqual({ outside: 403, allowed: 200 });
      expect(hits).toEqual(['/allowed']);
      const events = await auditEvents();
      const launch = events.findIndex((e) => e.kind === 'sandbox.launch');
      expect(launch).toBeGreaterThanOrEqual(0);
      const after = events.slice(launch + 1);
      expect(decisions(after)).toEqual([
        { host: 'outside.example', decision: 'deny' },
        { host: '127.0.0.1', decision: 'allow' },
      ]);
      expect(decisions(events.slice(0, launch))).toEqual([]);
      expect(events.every((e) => e.instance === early!.instanceId)).toBe(true);
    }, 30_000);

    it('records the decisions of a launch the session stops because the server changed', async () => {
      const early = await launchThenChange('allowlist');
      // The session's own instance (the current revision) asks again.
      expect(await session(early)).toEqual({ outside: 403, allowed: 200 });
      const events = await auditEvents();
      const ahead = events.filter((e) => e.instance === early.instanceId);
      expect(ahead[0]).toMatchObject({ kind: 'sandbox.launch', revision: 1 });
      expect(decisions(ahead)).toEqual([
        { host: 'outside.example', decision: 'deny' },
        { host: '127.0.0.1', decision: 'allow' },
      ]);
      expect(ahead.at(-1)).toMatchObject({ kind: 'instance.lifecycle', state: 'exited' });
    }, 30_000);
    it('in ask mode, lets the allowed name through at once and puts the other to the user only once the core runs', async () => {
      await storeProbe('ask');
      const early = await launchEarly({ wardenHome: home, name: 'probe', schemaId: SCHEMA });
      expect(early).toBeDefined();
      await hit('/allowed');
      // No one answers the prompt: after its second it is refused, as the core refuses it.
      expect(await session(early)).toEqual({ allowed: 200, outside: 403 });
      expect(hits).toEqual(['/allowed']);
      const events = (await auditEvents()).filter((e) => e.instance === early!.instanceId);
      const kinds = events.map((e) => e.kind);
      const launch = kinds.indexOf('sandbox.launch');
      expect(launch).toBeGreaterThanOrEqual(0);
      expect(kinds.indexOf('grant.requested')).toBeGreaterThan(launch);
      expect(events.find((e) => e.kind === 'grant.decided')).toMatchObject({
        host: 'outside.example',
        by: 'timeout',
      });
      expect(decisions(events.slice(launch + 1))).toEqual([
        { host: '127.0.0.1', decision: 'allow' },
        { host: 'outside.example', decision: 'deny' },
      ]);
    }, 30_000);

    it('in ask mode, refuses what waits for the user when the session stops the launch', async () => {
      const early = await launchThenChange('ask');
      await session(early);
      const ahead = (await auditEvents()).filter((e) => e.instance === early.instanceId);
      expect(ahead.map((e) => e.kind)).not.toContain('grant.requested');
      expect(
        ahead.find((e) => e.kind === 'network.decision' && e.decision === 'deny'),
      ).toMatchObject({
        host: 'outside.example',
        reason: expect.stringContaining('ended before') as string,
      });
    }, 30_000);
  },
);
