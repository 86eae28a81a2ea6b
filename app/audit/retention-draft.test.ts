/** The retention form's draft: edits kept over a newer stored copy, both-changed fields named. */
import { expect, it } from 'vitest';
import {
  createRetentionDraft,
  parseLimit,
  rebaseRetention,
  retentionEdited,
  savedRetention,
} from './retention-draft';

const stored = { maxSizeMb: 1024, maxAgeDays: 365 };

it('a fresh draft shows the stored limits as text, empty for no limit', () => {
  const d = createRetentionDraft({ maxSizeMb: null, maxAgeDays: 30 }, 'r1');
  expect(d).toEqual({
    base: 'r1',
    original: { size: '', age: '30' },
    edited: { size: '', age: '30' },
    conflicts: [],
  });
  expect(retentionEdited(d)).toBe(false);
});

it('a newer copy is taken in under the edits; a field both changed is named and kept mine', () => {
  const d = createRetentionDraft(stored, 'r1');
  const mine = { ...d, edited: { size: '500', age: '365' } };
  expect(retentionEdited(mine)).toBe(true);
  // Elsewhere: the age was lifted; the size untouched. Mine keeps 500, takes the new age.
  const lifted = rebaseRetention(mine, { maxSizeMb: 1024, maxAgeDays: null }, 'r2');
  expect(lifted).toMatchObject({ base: 'r2', edited: { size: '500', age: '' }, conflicts: [] });
  // Then the size changed elsewhere too, to another value than mine: a conflict, mine kept.
  const both = rebaseRetention(lifted, { maxSizeMb: 2048, maxAgeDays: null }, 'r3');
  expect(both).toMatchObject({
    base: 'r3',
    original: { size: '2048', age: '' },
    edited: { size: '500', age: '' },
    conflicts: ['size'],
  });
  // The same revision again changes nothing; the same value on both sides is no conflict.
  expect(rebaseRetention(both, { maxSizeMb: 1, maxAgeDays: 1 }, 'r3')).toBe(both);
  const agreed = rebaseRetention(mine, { maxSizeMb: 500, maxAgeDays: 365 }, 'r4');
  expect(agreed.conflicts).toEqual([]);
  expect(retentionEdited(agreed)).toBe(false);
});

it('after a save only what was typed meanwhile stays an edit', () => {
  const d = createRetentionDraft(stored, 'r1');
  const sent = { ...d, edited: { size: '500', age: '365' } };
  const typing = { ...sent, edited: { size: '500', age: '90' } };
  const after = savedRetention(typing, sent, { maxSizeMb: 500, maxAgeDays: 365 }, 'r2');
  expect(after).toEqual({
    base: 'r2',
    original: { size: '500', age: '365' },
    edited: { size: '500', age: '90' },
    conflicts: [],
  });
});

it('a limit is a whole number of 1 or more, or empty for none', () => {
  expect(parseLimit(' 30 ')).toBe(30);
  expect(parseLimit('')).toBeNull();
  for (const bad of ['0', '-3', '1.5', '1e3', 'ten']) expect(parseLimit(bad)).toBeUndefined();
});
