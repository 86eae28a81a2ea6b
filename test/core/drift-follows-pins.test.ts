/**
 * A running core against a server that changes its tool while it runs: the changed tool is
 * refused until its stored pin matches what the server offers, whoever writes the pin. A pin
 * edited by hand in config.json to something else keeps the tool refused (and the review shows
 * the pin as stored now); a server removed takes its drift and its left-out tools with it, so a
 * new server of that name starts clean; accepting pins the definition the user reviewed, and a
 * tool the server changed again since is refused.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ToolDrift, ToolListing } from '../../app/contract/tools';
import { defaultPolicy } from '../../app/policy/defaults';
import { type Core, createCore } from '../../main/core/core';
import { type FrontDoors, startFrontDoors } from '../../main/gateway/front-doors';
import { localClient } from '../helpers/local-client';
import { plainLauncher } from '../helpers/plain-launcher';
import { tempDirEach } from '../helpers/temp-dir';

const script = join(import.meta.dirname, '../fixtures/drifting-server.mjs');
let home = '';
let core: Core;
let doors: FrontDoors;
tempDirEach('warden-drift-pins-', (d) => (home = d));

const describedAs = (text: string) => writeFile(join(home, 'description.txt'), text);
const def = (description: string) => ({
  name: 'read',
  description,
  inputSchema: { type: 'object' },
});

async function addServer(): Promise<void> {
  const added = await core.config.addServer({
    name: 'd',
    launch: { command: process.execPath, args: [script, join(home, 'description.txt')] },
    policy: {
      ...defaultPolicy(),
      isolation: 'off',
      filesystem: {
        roots: [
          { path: dirname(script), access: 'read' },
          { path: home, access: 'read' },
        ],
      },
    },
    acknowledged: true,
  });
  expect(added.ok).toBe(true);
}

beforeEach(async () => {
  await describedAs('v1');
  core = await createCore({ wardenHome: home, launcher: plainLauncher(), log: () => undefined });
  await addServer();
  doors = await startFrontDoors(core, { httpPort: 0 });
});
afterEach(async () => {
  await doors.close();
  await core.close();
});

async function driftList(): Promise<ToolDrift[]> {
  const r = await core.handle('drift.list', {});
  if (!r.ok) throw new Error(r.error.message);
  return r.value as ToolDrift[];
}

/** Pins v1 over one session, then lists v2: `read` drifted. Gives a session to call it in. */
async function drifted() {
  const first = await localClient(home, 'd');
  expect((await first.client.listTools()).tools.map((t) => t.name)).toEqual(['read']);
  first.end();
  await describedAs('v2');
  const session = await localClient(home, 'd');
  expect((await session.client.listTools()).tools).toEqual([]);
  expect(await driftList()).toMatchObject([
    { tool: 'read', pinned: def('v1'), current: def('v2') },
  ]);
  const call = () => session.client.callTool({ name: 'read', arguments: {} });
  await expect(call()).rejects.toThrow(/changed its definition since it was pinned/);
  return { ...session, call };
}

/** config.json edited by hand: the pin of `read` set to `pin`. */
async function editPin(pin: unknown): Promise<void> {
  const path = join(home, 'config.json');
  const doc = JSON.parse(await readFile(path, 'utf8')) as {
    servers: { name: string; policy: { tools: { pinned: Record<string, unknown> } } }[];
  };
  doc.servers.find((s) => s.name === 'd')!.policy.tools.pinned.read = pin;
  await writeFile(path, JSON.stringify(doc, null, 2));
}

it('a pin edited by hand to anything but the offered definition keeps the tool refused', async () => {
  const { call, end } = await drifted();
  await editPin(def('v3'));
  await expect
    .poll(async () => (await driftList())[0]?.pinned, { timeout: 3000 })
    .toEqual(def('v3'));
  await expect(call()).rejects.toThrow(/changed its definition since it was pinned/);
  // Edited to what the server offers: the tool is let through without another listing.
  await editPin(def('v2'));
  await expect.poll(driftList, { timeout: 3000 }).toEqual([]);
  expect(await call()).toMatchObject({ content: [{ type: 'text', text: 'read it' }] });
  end();
});

it('a server removed takes its drift and left-out tools along; one of that name starts clean', async () => {
  const { end } = await drifted();
  end();
  // A pinned tool left out of a whole listing, as well.
  const pinned = core.config.getServer('d')!.policy.tools.pinned;
  await core.config.updateServer('d', (s) => ({
    policy: {
      ...s.policy,
      tools: { ...s.policy.tools, pinned: { ...pinned, gone: { name: 'gone' } } },
    },
  }));
  const again = await localClient(home, 'd');
  await again.client.listTools();
  again.end();
  const listings = async () => {
    const r = await core.handle('tools.listings', {});
    return r.ok ? (r.value as ToolListing[]) : [];
  };
  expect((await listings()).flatMap((l) => l.unlisted.map((u) => u.name))).toEqual(['gone']);

  expect(await core.handle('servers.remove', { name: 'd' })).toMatchObject({ ok: true });
  expect(await driftList()).toEqual([]);
  expect(await listings()).toEqual([]);
  await addServer();
  const fresh = await localClient(home, 'd');
  expect((await fresh.client.listTools()).tools.map((t) => t.name)).toEqual(['read']);
  expect(await fresh.client.callTool({ name: 'read', arguments: {} })).toMatchObject({
    content: [{ text: 'read it' }],
  });
  fresh.end();
});

it('accepting pins what was reviewed: a tool changed again since is refused, not pinned', async () => {
  const { call, end } = await drifted();
  const reviewed = (await driftList())[0]!.current;
  // The server changes the tool again, and a client lists it, after the review was opened.
  await describedAs('v4');
  const other = await localClient(home, 'd');
  await other.client.listTools();
  other.end();
  expect(await driftList()).toMatchObject([{ pinned: def('v1'), current: def('v4') }]);
  const decide = (definition: unknown) =>
    core.handle('drift.decide', {
      server: 'd',
      tool: 'read',
      decision: 'accept',
      reviewed: definition,
    });
  expect(await decide(reviewed)).toMatchObject({
    ok: false,
    error: {
      kind: 'conflict',
      message: 'the server changed this tool again since you reviewed it',
    },
  });
  expect(core.config.getServer('d')!.policy.tools.pinned.read).toEqual(def('v1'));
  await expect(call()).rejects.toThrow(/changed its definition since it was pinned/);
  // Accept needs the definition reviewed: none is no decision.
  expect(
    await core.handle('drift.decide', { server: 'd', tool: 'read', decision: 'accept' }),
  ).toMatchObject({
    ok: false,
    error: { kind: 'invalid-input' },
  });
  // The change it reports now, reviewed and accepted: pinned, and the tool is let through.
  expect(await decide((await driftList())[0]!.current)).toEqual({
    ok: true,
    value: { decided: true },
  });
  expect(core.config.getServer('d')!.policy.tools.pinned.read).toEqual(def('v4'));
  expect(await driftList()).toEqual([]);
  expect(await call()).toMatchObject({ content: [{ text: 'read it' }] });
  end();
});
