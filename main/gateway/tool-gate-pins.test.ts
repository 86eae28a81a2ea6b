/**
 * A server that lists ever new tools, or huge ones, to grow the pins kept in config.json without
 * end: past the pin budget a tool is neither pinned nor shown, and each such listing is one
 * limit.hit row. Tools pinned before stay as they are.
 */
import { expect, it } from 'vitest';
import { pinningGate } from '../../test/helpers/pinning-gate';
import { MAX_PINNED_CHARS, MAX_PINNED_TOOLS, MAX_TOOL_NAME } from './pin-budget';

function budgetGate() {
  const { gate, events, pinned } = pinningGate();
  const pinnedChars = () => JSON.stringify(Object.values(pinned())).length;
  return { gate, events, pinned, pinnedChars };
}

const listing = (round: number, n: number, description = '') =>
  Array.from({ length: n }, (_, i) => ({ name: `t${round}_${i}`, description, inputSchema: {} }));

it('pins no more than the budget of tools however many listings bring new ones', async () => {
  const { gate, events, pinned } = budgetGate();
  let shown = 0;
  for (let round = 0; round < 30; round++)
    shown += (await gate.filterList(listing(round, 50))).length;
  expect(Object.keys(pinned())).toHaveLength(MAX_PINNED_TOOLS);
  expect(shown).toBe(MAX_PINNED_TOOLS);
  const hits = events.filter((e) => e.kind === 'limit.hit');
  expect(hits).toHaveLength(10);
  expect(hits[0]).toMatchObject({ limit: 'pinnedTools', value: 50, outcome: 'refused' });
  expect(hits[0]?.kind === 'limit.hit' && hits[0].detail).toMatch(
    /not pinned and not shown to the client: "t20_0", .* and 45 more \(the first: the server has 1000 tools pinned\)/,
  );
  // The tools pinned before still show.
  expect(await gate.filterList(listing(0, 50))).toHaveLength(50);
});

it('pins no more than the budget of characters, and no tool with an overlong name', async () => {
  const { gate, events, pinnedChars } = budgetGate();
  const big = 'x'.repeat(100_000);
  for (let round = 0; round < 10; round++) await gate.filterList(listing(round, 10, big));
  expect(pinnedChars()).toBeLessThanOrEqual(MAX_PINNED_CHARS);
  expect(pinnedChars()).toBeGreaterThan(MAX_PINNED_CHARS - 200_000);
  const long = { name: 'n'.repeat(MAX_TOOL_NAME + 1), inputSchema: {} };
  expect(await gate.filterList([long])).toEqual([]);
  const last = events.at(-1);
  expect(last?.kind === 'limit.hit' && last.detail).toMatch(/longer than 128 characters/);
  expect(last?.kind === 'limit.hit' && last.detail!.length).toBeLessThan(200);
});
