/**
 * The whole core as `warden serve` runs it (front doors, control panel, audit), against a hostile
 * server: one session's poison stays in that session, and the HTTP front door launches nothing
 * before a valid `initialize` and ends an instance as soon as its session ends.
 */
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { type Core, createCore } from '../../main/core/core';
import { ClientTokens } from '../../main/gateway/client-tokens';
import { type FrontDoors, startFrontDoors } from '../../main/gateway/front-doors';
import { type WebServer, startWebServer } from '../../main/web/web-server';
import { hostileScript } from '../helpers/hostile-sessions';
import { localClient as localClientOf } from '../helpers/local-client';
import { plainLauncher } from '../helpers/plain-launcher';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
let core: Core;
let doors: FrontDoors;
let web: WebServer;
let launcher: ReturnType<typeof plainLauncher>;
let token: string;
const logged: string[] = [];

tempDirEach('warden-survival-', (d) => (home = d));
beforeEach(async () => {
  const staticDir = join(home, 'renderer');
  await rm(staticDir, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(staticDir));
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Warden</title>');
  launcher = plainLauncher();
  core = await createCore({ wardenHome: home, launcher, log: (l) => void logged.push(l) });
  for (const [name, list] of [
    ['hostile', 'plain'],
    ['deep', 'deep'],
  ] as const) {
    await core.config.addServer({
      name,
      launch: { command: process.execPath, args: [hostileScript, list] },
      // The script's folder is declared, as a server's own script must be.
      policy: {
        ...defaultPolicy(),
        filesystem: { roots: [{ path: dirname(hostileScript), access: 'read' }] },
      },
      acknowledged: true,
    });
  }
  doors = await startFrontDoors(core, { httpPort: 0 });
  token = await new ClientTokens(home).issue('test', 'test');
  web = await startWebServer({ core, staticDir });
});
afterEach(async () => {
  await doors.close();
  await web.close();
  await core.close();
});

function httpClient(name: string) {
  const transport = new StreamableHTTPClientTransport(new URL(doors.http.url(name)), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  return { client: new Client({ name: 'survival', version: '1.0.0' }), transport };
}

const localClient = (name: string) => localClientOf(home, name);

const post = (name: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(doors.http.url(name), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });

describe('the core survives a hostile server', () => {
  it('a tools/list answer nested 200,000 deep fails that call only; other sessions and the control panel go on', async () => {
    const deep = httpClient('deep');
    await deep.client.connect(deep.transport);
    await expect(deep.client.listTools()).rejects.toThrow(/nested deeper than 64 levels/);
    const { client: local, end } = await localClient('deep');
    await expect(local.listTools()).rejects.toThrow(/nested deeper than 64 levels/);

    const neighbour = httpClient('hostile');
    await neighbour.client.connect(neighbour.transport);
    const echoed = await neighbour.client.callTool({
      name: 'behave',
      arguments: { behaviour: 'echo', message: 'neighbour' },
    });
    expect(echoed.content).toEqual([{ type: 'text', text: 'neighbour' }]);
    expect((await local.callTool({ name: 'echo', arguments: { message: 'x' } })).content).toEqual([
      { type: 'text', text: 'x' },
    ]);

    expect((await fetch(`http://127.0.0.1:${web.port}/`)).status).toBe(200);
    const instances = await core.handle('instances.list', {});
    expect(instances.ok && (instances.value as unknown[]).length).toBe(3);
    const refused = (await core.audit.query({ kind: 'limit.hit', limit: 10 })).rows;
    expect(refused.map((r) => r.event)).toEqual(
      expect.arrayContaining([expect.objectContaining({ limit: 'messageDepth', server: 'deep' })]),
    );
    await local.close();
    end();
    await deep.client.close();
    await neighbour.client.close();
  });

  it('launches nothing for requests that are not an initialize', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await post('hostile', { jsonrpc: '2.0', id: i, method: 'tools/list' });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/start a session with an initialize request/);
    }
    const deep = await post('hostile', JSON.parse(`${'['.repeat(1000)}${']'.repeat(1000)}`));
    expect(deep.status).toBe(400);
    expect((await core.audit.query({ kind: 'limit.hit', limit: 5 })).rows[0]?.event).toMatchObject({
      limit: 'messageDepth',
      server: 'hostile',
    });
    expect(launcher.launches).toBe(0);
    expect(core.supervisor.list()).toEqual([]);
  });

  it('answers 404 for an unknown or ended session, and DELETE ends the session and its instance at once', async () => {
    const unknown = await post(
      'hostile',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-session-id': 'no-such-session' },
    );
    expect(unknown.status).toBe(404);

    const a = httpClient('hostile');
    await a.client.connect(a.transport);
    const idA = a.transport.sessionId!;
    const [instanceA] = core.supervisor.list();
    expect(instanceA?.state.kind).toBe('running');
    await a.transport.terminateSession();
    expect(core.supervisor.list().find((i) => i.id === instanceA!.id)?.state.kind).toBe('exited');
    const afterDelete = await post(
      'hostile',
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': idA },
    );
    expect(afterDelete.status).toBe(404);

    // A session whose instance was stopped from the control panel has expired too.
    const b = httpClient('hostile');
    await b.client.connect(b.transport);
    const running = core.supervisor.list().find((i) => i.state.kind === 'running')!;
    await core.supervisor.stop(running.id);
    const afterStop = await post(
      'hostile',
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      { 'mcp-session-id': b.transport.sessionId! },
    );
    expect(afterStop.status).toBe(404);
  });
});
