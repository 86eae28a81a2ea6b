/**
 * The pinned tools a server's whole listing leaves out are told to the UI; one page of a listing
 * tells nothing. The relay says which listings are whole: asked without a cursor and answered
 * without a next one.
 */
import { describe, expect, it } from 'vitest';
import { wiredRelay } from '../../test/helpers/line-relay';
import { pinningGate } from '../../test/helpers/pinning-gate';
import type { ToolGate } from './relay';
import { ToolListings } from './tool-listings';

function listingGate(pinned: string[]) {
  const listings = new ToolListings();
  let changes = 0;
  listings.onChange(() => changes++);
  const { gate } = pinningGate({
    pinned: Object.fromEntries(pinned.map((name) => [name, { name }])),
    listings,
  });
  return { gate, listings, changes: () => changes };
}

const tools = (...names: string[]) => names.map((name) => ({ name }));

describe('tool listings', () => {
  it('tells the pinned tools a whole listing left out, and only on a whole listing', async () => {
    const { gate, listings, changes } = listingGate(['read', 'gone', 'old', 'off']);
    const names = () => listings.list().flatMap((l) => l.unlisted.map((u) => u.name));
    // A page (or a listing whose wholeness is unknown) tells nothing.
    await gate.filterList(tools('read'), false);
    await gate.filterList(tools('read'));
    expect(listings.list()).toEqual([]);
    expect(changes()).toBe(0);
    // A disabled tool still listed is not left out; a new one is pinned, not left out.
    await gate.filterList(tools('read', 'off', 'new', 'old'), true);
    expect(listings.list()).toMatchObject([{ server: 's', unlisted: [{ name: 'gone' }] }]);
    const goneSince = listings.list()[0]!.unlisted[0]!.since;
    // Listed again and again the same way: told once.
    for (let i = 0; i < 5; i++) await gate.filterList(tools('read', 'off', 'new', 'old'), true);
    expect(changes()).toBe(1);
    // One more left out later: each keeps its own time.
    await new Promise((r) => setTimeout(r, 5));
    await gate.filterList(tools('read', 'off', 'new'), true);
    const [gone, old] = listings.list()[0]!.unlisted;
    expect([gone!.name, gone!.since, old!.name]).toEqual(['gone', goneSince, 'old']);
    expect(old!.since > goneSince).toBe(true);
    expect(changes()).toBe(2);
    // The pins as stored now: `gone` forgotten (no longer told), the rest kept (nothing told).
    const pins = (...n: string[]) => Object.fromEntries(n.map((name) => [name, { name }]));
    listings.followPins('s', pins('read', 'old', 'off', 'new'));
    expect(names()).toEqual(['old']);
    listings.followPins('s', pins('read', 'old', 'off', 'new'));
    listings.followPins('other', undefined);
    expect(changes()).toBe(3);
    // A whole listing with every pinned tool in it clears the server, and says so once.
    await gate.filterList(tools('read', 'gone', 'old', 'off', 'new'), true);
    expect(listings.list()).toEqual([]);
    await gate.filterList(tools('read', 'gone', 'old', 'off', 'new'), true);
    expect(changes()).toBe(4);
  });

  it('forgets a server that is gone, and a tool pinned under an inherited name is not kept', () => {
    const listings = new ToolListings();
    listings.seen('s', ['constructor', 'read']);
    listings.followPins('s', { read: { name: 'read' } });
    expect(listings.list()).toMatchObject([{ unlisted: [{ name: 'read' }] }]);
    listings.followPins('s', undefined);
    expect(listings.list()).toEqual([]);
  });

  it('a name a server lists as `__proto__` or twice is still only a name', async () => {
    const { gate, listings } = listingGate(['constructor', 'read']);
    await gate.filterList([{ name: '__proto__' }, { name: 'read' }, { name: 'read' }], true);
    expect(listings.list()).toMatchObject([{ unlisted: [{ name: 'constructor' }] }]);
  });
});

describe('relay: which listings are whole', () => {
  const seen: Array<boolean | undefined> = [];
  const gate: ToolGate = {
    filterList: (list, whole) => {
      seen.push(whole);
      return Promise.resolve(list);
    },
    checkCall: () => ({ allow: true }),
  };

  it('is whole only when asked without a cursor and answered without a next one', async () => {
    const w = wiredRelay(gate, () => undefined);
    const list = async (id: number, params: string, result: string) => {
      await w.fromClient(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"${params}}`);
      await w.fromServer(`{"jsonrpc":"2.0","id":${id},"result":{"tools":[]${result}}}`);
    };
    await list(1, '', '');
    await list(2, ',"params":{}', ',"nextCursor":"p2"');
    await list(3, ',"params":{"cursor":"p2"}', '');
    await list(4, ',"params":{"cursor":null}', '');
    await list(5, ',"params":{"_meta":{}}', ',"nextCursor":null');
    expect(seen).toEqual([true, false, false, false, false]);
  });
});
