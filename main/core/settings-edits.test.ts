import { describe, expect, it } from 'vitest';
import { guardsChanged } from './settings-edits';

describe('guardsChanged', () => {
  it('names each switch of the global part that changed, the workspace one included', () => {
    expect(guardsChanged(undefined, { workspace: { allowExceptions: false } })).toEqual([
      'guards.workspace.allowExceptions',
    ]);
    expect(
      guardsChanged(
        { isolation: { allowBestEffort: false } },
        { isolation: { allowBestEffort: true }, network: { allow: [] } },
      ),
    ).toEqual(['guards.isolation.allowBestEffort', 'guards.network.allow']);
  });

  it('counts a default spelled out as no change', () => {
    expect(guardsChanged(undefined, { workspace: { allowExceptions: true } })).toEqual([]);
  });
});
