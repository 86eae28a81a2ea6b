/**
 * A drifted tool stays refused until the stored pin matches what the server offers, whoever
 * changes the pin: a pin edited to anything else (by hand, by an import, by another Warden
 * process) must not let the changed tool through. A forgotten pin, or a server gone, ends it.
 */
import { describe, expect, it } from 'vitest';
import { pinningGate } from '../../test/helpers/pinning-gate';

const v = (description: string) => ({ name: 'read', description, inputSchema: {} });

/** A gate whose `read` was pinned as v1 and is now listed as v2 (drifted, refused). */
async function drifted() {
  const g = pinningGate();
  let changes = 0;
  g.drift.onChange(() => changes++);
  await g.gate.filterList([v('v1')]);
  expect(await g.gate.filterList([v('v2')])).toEqual([]);
  expect(g.gate.checkCall('read', {}, 1)).toMatchObject({ allow: false });
  return { ...g, changes: () => changes };
}

describe('drift follows the stored pins', () => {
  it('a pin changed to anything but the offered definition keeps the tool refused', async () => {
    const { gate, drift, changes } = await drifted();
    const before = changes();
    // Stored as it was: nothing changes, nothing is told.
    drift.followPins('s', { read: v('v1') });
    expect(changes()).toBe(before);
    drift.followPins('s', { read: v('v3') });
    expect(changes()).toBe(before + 1);
    expect(drift.get('s', 'read')).toMatchObject({
      pinned: v('v3'),
      current: v('v2'),
      fields: ['description'],
    });
    const verdict = gate.checkCall('read', {}, 2);
    expect(verdict).toMatchObject({ allow: false });
    expect(JSON.stringify(verdict)).toMatch(/changed its definition since it was pinned/);
    // Another server's pins say nothing of this one.
    drift.followPins('other', undefined);
    expect(drift.get('s', 'read')).toBeDefined();
  });

  it('a pin that now matches the offered definition lets the tool through', async () => {
    const { gate, drift } = await drifted();
    drift.followPins('s', { read: { ...v('v2'), inputSchema: {} } });
    expect(drift.list()).toEqual([]);
    expect(gate.checkCall('read', {}, 2)).toEqual({ allow: true });
  });

  it('a forgotten pin, or a server gone, ends the drift', async () => {
    const forgotten = await drifted();
    // `read` is no own key of the pins here, whatever the prototype holds.
    forgotten.drift.followPins('s', Object.create({ read: v('v1') }) as Record<string, never>);
    expect(forgotten.drift.list()).toEqual([]);
    const gone = await drifted();
    gone.drift.followPins('s', undefined);
    expect(gone.drift.list()).toEqual([]);
  });
});
