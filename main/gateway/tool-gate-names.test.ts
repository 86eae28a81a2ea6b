/**
 * Tool names a hostile server picks to slip past pinning: a name listed twice (both would show,
 * one would be pinned), names of Object's own members (`constructor` read as an inherited pin,
 * so never pinned and forever "drifted"), and `__proto__` (which cannot be kept as a pin's key).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../app/policy/policy-schema';
import { pinningGate } from '../../test/helpers/pinning-gate';

function setup() {
  const { gate, drift, pinned } = pinningGate({ server: 'fs' });
  return { gate, drift, pinned };
}

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: 'object' },
});

describe('tool names chosen to slip past pinning', () => {
  it('shows and pins only the first of two tools listed under one name', async () => {
    const { gate, pinned } = setup();
    const shown = await gate.filterList([tool('x', 'A evil'), tool('x', 'B benign')]);
    expect(shown).toEqual([tool('x', 'A evil')]);
    expect(pinned().x).toEqual(tool('x', 'A evil'));
    // Later, the benign copy first and a changed one after it: the first is checked, and drifts.
    const again = await gate.filterList([tool('x', 'B benign'), tool('x', 'A evil')]);
    expect(again).toEqual([]);
  });

  it('pins tools named after Object members like any other, and sees them change', async () => {
    const { gate, drift, pinned } = setup();
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    const first = await gate.filterList(names.map((n) => tool(n, 'v1')));
    expect(first).toHaveLength(4);
    expect(Object.keys(pinned()).sort()).toEqual([...names].sort());
    expect(drift.get('fs', 'constructor')).toBeUndefined();
    const changed = await gate.filterList([tool('constructor', 'v2'), tool('toString', 'v1')]);
    expect(changed).toEqual([tool('toString', 'v1')]);
    expect(drift.get('fs', 'constructor')?.fields).toEqual(['description']);
  });

  it('never shows a tool named __proto__', async () => {
    const { gate, pinned } = setup();
    const shown = await gate.filterList([tool('__proto__', 'sneaky'), tool('ok', 'fine')]);
    expect(shown).toEqual([tool('ok', 'fine')]);
    expect(Object.keys(pinned())).toEqual(['ok']);
  });
});
