import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { redactSecrets } from '../../app/audit/redact';
import type { Server, ToolDefinition } from '../../app/policy/policy-schema';
import { ApprovalInbox } from '../../main/gateway/approval-inbox';
import { createToolGate } from '../../main/gateway/tool-gate';
import { DriftRegistry } from '../../main/gateway/tool-drift';
import { Supervisor } from '../../main/supervisor/supervisor';
import { bundleForNode } from '../helpers/bundle';
import { plainLauncher } from '../helpers/plain-launcher';
import { hostileServer } from '../helpers/hostile-sessions';

let hostile: string;
let dir: string;
const dir_ = () => dir;
beforeAll(async () => {
  hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
  dir = await mkdtemp(join(tmpdir(), 'warden-relay-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function setup(
  opts: { env?: Record<string, string>; tune?: (s: Server) => void; maxMessageBytes?: number } = {},
) {
  const server = hostileServer(hostile);
  server.policy.env.set.API_TOKEN = { kind: 'plain', value: 'tok-1234567890' };
  opts.tune?.(server);
  const events: AuditEventInput[] = [];
  const audit = (e: AuditEventInput) => void events.push(e);
  const approvals = new ApprovalInbox(audit);
  const drift = new DriftRegistry();
  const launcher = plainLauncher({ API_TOKEN: 'tok-1234567890', ...(opts.env ?? {}) });
  const redact = () => (v: unknown) =>
    redactSecrets(v, [{ name: 'API_TOKEN', value: 'tok-1234567890' }]);
  const supervisor = new Supervisor({
    getServer: () => server,
    launcher,
    instancesDir: dir,
    audit,
    redact,
    maxMessageBytes: opts.maxMessageBytes,
    gate: (name, instance) =>
      createToolGate({
        server: name,
        instance,
        policy: () => server.policy.tools,
        pin: (defs: Record<string, ToolDefinition>) => {
          Object.assign(server.policy.tools.pinned, defs);
          return Promise.resolve();
        },
        drift,
        approvals,
        audit,
        redact: redact(),
      }),
  });
  const connect = async () => {
    const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
    const session = await supervisor.open('hostile', sessionSide, 'test');
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientSide);
    return { client, session };
  };
  return { server, events, approvals, drift, supervisor, connect, launcher };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

/** A full collection on demand (the flag is read when `gc` is looked up). */
setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

describe('relay and supervisor', () => {
  it('relays tools/list and tools/call and audits each call with its duration', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const { client } = await s.connect();
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
    const responses = s.events.filter(
      (e) => e.kind === 'mcp.response' && e.method === 'tools/call',
    );
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      tool: 'echo',
      outcome: 'ok',
      resultSummary: '1 content block',
    });
    expect((responses[0] as { durationMs: number }).durationMs).toBeGreaterThan(0);
  });

  it('hides disabled tools and refuses calls to them', async () => {
    const s = setup({ tune: (srv) => srv.policy.tools.disabled.push('leak_env') });
    cleanup.push(() => s.supervisor.stopAll());
    const { client } = await s.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('leak_env');
    await expect(
      client.callTool({ name: 'leak_env', arguments: { name: 'API_TOKEN' } }),
    ).rejects.toThrow(/disabled/);
    expect(
      s.events.some(
        (e) => e.kind === 'mcp.response' && e.outcome === 'refused' && e.tool === 'leak_env',
      ),
    ).toBe(true);
  });

  it('redacts a secret the server emits before it is recorded', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const { client } = await s.connect();
    await client.callTool({ name: 'echo', arguments: { message: 'my token is tok-1234567890' } });
    const request = s.events.find((e) => e.kind === 'mcp.request' && e.tool === 'echo');
    expect(JSON.stringify(request)).toContain('«secret:API_TOKEN»');
    expect(JSON.stringify(s.events)).not.toContain('tok-1234567890');
  });

  it('holds an approval-required call until the user decides', async () => {
    const s = setup({ tune: (srv) => srv.policy.tools.approval.push('echo') });
    cleanup.push(() => s.supervisor.stopAll());
    const { client } = await s.connect();
    const call = client.callTool({ name: 'echo', arguments: { message: 'may I?' } });
    await expect.poll(() => s.approvals.list().length).toBe(1);
    const [pending] = s.approvals.list();
    expect(pending).toMatchObject({ tool: 'echo', args: { message: 'may I?' } });
    await s.approvals.decide(pending!.id, 'approve');
    expect((await call).content).toEqual([{ type: 'text', text: 'may I?' }]);

    const denied = client.callTool({ name: 'echo', arguments: { message: 'again' } });
    await expect.poll(() => s.approvals.list().length).toBe(1);
    await s.approvals.decide(s.approvals.list()[0]!.id, 'deny');
    await expect(denied).rejects.toThrow(/not approved/);
  });

  it('pins definitions on first sight and hides a tool whose definition drifted', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const first = await s.connect();
    await first.client.listTools();
    expect(s.server.policy.tools.pinned.echo?.description).toBe('Echoes its input');
    await first.client.close();

    const drifting = setup({ env: { HOSTILE_DRIFT: '1' } });
    drifting.server.policy.tools.pinned = s.server.policy.tools.pinned;
    cleanup.push(() => drifting.supervisor.stopAll());
    const second = await drifting.connect();
    const names = (await second.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('echo');
    expect(names).toContain('read_file');
    const [drift] = drifting.drift.list();
    expect(drift).toMatchObject({ tool: 'echo', fields: ['description'] });
    expect(drift?.current.description).toContain('ignore previous instructions');
    await expect(
      second.client.callTool({ name: 'echo', arguments: { message: 'x' } }),
    ).rejects.toThrow(/changed its definition/);
    expect(drifting.events.some((e) => e.kind === 'tool.drift')).toBe(true);
  });

  it('gives the client a JSON-RPC error when the server dies mid-call, then restarts it', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const { client, session } = await s.connect();
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(/exited/);
    // The next call goes to a restarted process with the handshake replayed.
    const again = await client.callTool({ name: 'echo', arguments: { message: 'back' } });
    expect(again.content).toEqual([{ type: 'text', text: 'back' }]);
    expect(session.view().restarts).toBe(1);
    expect(s.launcher.launches).toBe(2);
  });

  it('refuses an oversized result with a clear error, keeps memory bounded and other instances answering', async () => {
    const s = setup({ maxMessageBytes: 1024 * 1024 });
    cleanup.push(() => s.supervisor.stopAll());
    const { client } = await s.connect();
    const other = await s.connect();
    // V8 collects the chunks read from the pipe, which live outside its heap, only once tens of
    // MB of them wait (about 64 MB on Node 26): collected every 20 ms here, the peaks measure what
    // the relay holds, not when V8 chose to collect. What counts is what stays live from one
    // collection to the next: V8 frees a collected chunk's memory on a thread of its own, which
    // on a busy machine lags a collection (by up to 20 MB, measured on Node 26).
    const live = () => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const liveBaseline = live();
    let livePeak = liveBaseline;
    let lastLive = liveBaseline;
    const collector = setInterval(() => {
      const now = live();
      livePeak = Math.max(livePeak, Math.min(lastLive, now));
      lastLive = now;
    }, 20);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const big = client.callTool({ name: 'big_result', arguments: { megabytes: 100 } });
    // While 100 MB stream through the gateway, the other session's calls still go through.
    for (let i = 0; i < 5; i++) {
      const r = await other.client.callTool({ name: 'echo', arguments: { message: `other ${i}` } });
      expect(r.content).toEqual([{ type: 'text', text: `other ${i}` }]);
    }
    await expect(big).rejects.toThrow(/over the limit of 1048576 bytes/);
    clearInterval(sampler);
    clearInterval(collector);
    expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);
    expect(livePeak - liveBaseline).toBeLessThan(16 * 1024 * 1024);
    expect(
      (await client.callTool({ name: 'echo', arguments: { message: 'still here' } })).content,
    ).toEqual([{ type: 'text', text: 'still here' }]);
  });

  it('keeps stderr floods and junk lines out of the protocol, bounded', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const { client, session } = await s.connect();
    await client.callTool({ name: 'flood_stderr', arguments: { megabytes: 20 } });
    await client.callTool({ name: 'junk_stdout', arguments: {} });
    expect((await client.callTool({ name: 'echo', arguments: { message: 'ok' } })).content).toEqual(
      [{ type: 'text', text: 'ok' }],
    );
    const tail = session.view().stderrTail;
    expect(tail.length).toBeLessThanOrEqual(201);
    expect(tail.some((l) => l.includes('[not JSON-RPC on stdout] this is not json-rpc'))).toBe(
      true,
    );
  });

  it('stops an idle instance, removes its private files, and starts it again on the next call', async () => {
    const s = setup({ tune: (srv) => (srv.policy.idleTimeoutSeconds = 1) });
    cleanup.push(() => s.supervisor.stopAll());
    const { client, session } = await s.connect();
    await client.callTool({ name: 'echo', arguments: { message: 'before' } });
    const instanceDir = join(dir_(), session.id);
    expect(existsSync(instanceDir)).toBe(true);
    await expect.poll(() => session.view().state.kind, { timeout: 5000 }).toBe('exited');
    expect(session.view().state).toMatchObject({
      reason: expect.stringContaining('idle') as unknown,
    });
    await expect.poll(() => existsSync(instanceDir)).toBe(false);
    expect(s.events.some((e) => e.kind === 'limit.hit' && e.limit === 'idleTimeoutSeconds')).toBe(
      true,
    );
    const again = await client.callTool({ name: 'echo', arguments: { message: 'after' } });
    expect(again.content).toEqual([{ type: 'text', text: 'after' }]);
    expect(s.launcher.launches).toBe(2);
  });

  it('a server that cannot start ends as failed with its own words, even when the client gives up', async () => {
    const s = setup({
      tune: (srv) =>
        (srv.launch!.args = [
          '-e',
          'console.error("cannot open /data/db: No such file or directory"); process.exit(1)',
        ]),
    });
    cleanup.push(() => s.supervisor.stopAll());
    const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
    const session = await s.supervisor.open('hostile', sessionSide, 'test');
    const client = new Client({ name: 'gives-up', version: '1.0.0' });
    await expect(client.connect(clientSide)).rejects.toThrow(
      /exited \(code 1.*No such file or directory/,
    );
    await client.close();
    await expect.poll(() => session.view().state.kind).toBe('failed');
    const state = session.view().state;
    expect(state.kind === 'failed' && state.reason).toMatch(
      /crashed \(exit code 1.*No such file or directory.*client disconnected/,
    );
  });

  it('restarts an instance within its session: the handshake is replayed and calls go on', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const { client, session } = await s.connect();
    const before = await client.callTool({ name: 'pid', arguments: {} });
    expect(await s.supervisor.restart(session.id)).toBe(true);
    const after = await client.callTool({ name: 'pid', arguments: {} });
    expect(after.content).not.toEqual(before.content);
    expect(session.view()).toMatchObject({ restarts: 1, state: { kind: 'running' } });
  });

  it('starts an instance Warden holds itself, which lists and pins the tools before any client', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    expect(s.server.policy.tools.pinned).toEqual({});
    const session = await s.supervisor.startOwned('hostile');
    await expect.poll(() => Object.keys(s.server.policy.tools.pinned).length).toBeGreaterThan(0);
    expect(s.server.policy.tools.pinned.echo?.description).toBe('Echoes its input');
    expect(session.view()).toMatchObject({ client: 'warden', state: { kind: 'running' } });
    expect(await s.supervisor.stop(session.id)).toBe(true);
  });

  it('never starts a server whose command the user has not confirmed', async () => {
    const s = setup({ tune: (srv) => (srv.acknowledged = false) });
    cleanup.push(() => s.supervisor.stopAll());
    const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
    const session = await s.supervisor.open('hostile', sessionSide, 'test');
    const client = new Client({ name: 'unconfirmed', version: '1.0.0' });
    await expect(client.connect(clientSide)).rejects.toThrow(/has not been confirmed yet/);
    expect(session.view().state.kind).toBe('failed');
    expect(s.launcher.launches).toBe(0);
  });

  it('gives two client sessions two separate instances', async () => {
    const s = setup();
    cleanup.push(() => s.supervisor.stopAll());
    const a = await s.connect();
    const b = await s.connect();
    const pidA = await a.client.callTool({ name: 'pid', arguments: {} });
    const pidB = await b.client.callTool({ name: 'pid', arguments: {} });
    expect(pidA.content).not.toEqual(pidB.content);
    expect(s.supervisor.list().filter((i) => i.state.kind === 'running')).toHaveLength(2);
    await a.client.close();
    await expect
      .poll(() => s.supervisor.list().filter((i) => i.state.kind === 'running').length)
      .toBe(1);
  });
});
