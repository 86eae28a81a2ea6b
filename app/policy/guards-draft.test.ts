import { describe, expect, it } from 'vitest';
import { DEFAULT_HIDDEN_PATHS } from './guards';
import {
  changedFields,
  createGuardsDraft,
  draftGuards,
  editGuards,
  rebaseGuards,
  savedGuards,
  storedFieldText,
} from './guards-draft';

describe('the global part as the Policy screen edits it', () => {
  it('saves only what the user changed: defaults stay defaults, unshown fields stay as stored', () => {
    const stored = { audit: { minRetentionDays: 30 }, isolation: { allowBestEffort: false } };
    const draft = createGuardsDraft(stored, 'r1');
    expect(draft.edited.hiddenPaths).toEqual([...DEFAULT_HIDDEN_PATHS]);
    expect(draftGuards(draft)).toEqual(stored);
    const edited = editGuards(draft, {
      allowOff: false,
      limits: { pids: 64, memoryMb: undefined },
    });
    expect(changedFields(edited)).toEqual(['limits', 'allowOff']);
    expect(draftGuards(edited)).toEqual({
      audit: { minRetentionDays: 30 },
      isolation: { allowBestEffort: false, allowOff: false },
      limits: { pids: 64 },
    });
  });

  it('drops the allow list when its switch is turned off, leaving no empty object', () => {
    const draft = createGuardsDraft({ network: { allow: ['*.corp.test'] } }, 'r1');
    expect(draft.edited.allowOnly).toEqual(['*.corp.test']);
    expect(draftGuards(editGuards(draft, { allowOnly: null }))).toEqual({});
    // An empty list is kept: it allows no destination at all.
    expect(draftGuards(editGuards(draft, { allowOnly: [] }))).toEqual({ network: { allow: [] } });
  });

  it('takes in a newer part under the edits, reporting the fields both changed', () => {
    const draft = editGuards(createGuardsDraft({ network: { deny: ['a.test'] } }, 'r1'), {
      deny: ['a.test', 'mine.test'],
      allowOff: false,
      limits: { pids: 64 },
    });
    const rebased = rebaseGuards(
      draft,
      {
        network: { deny: ['a.test', 'theirs.test'] },
        isolation: { allowOff: true },
        limits: { pids: 32 },
      },
      'r2',
    );
    expect(rebased.base).toBe('r2');
    // Lists merge as sets; a limit both set differently keeps the user's value, reported.
    expect(rebased.edited.deny).toEqual(['a.test', 'theirs.test', 'mine.test']);
    expect(rebased.edited.allowOff).toBe(false);
    expect(rebased.edited.limits).toEqual({ pids: 64 });
    expect(rebased.conflicts).toEqual(['limits']);
    expect(draftGuards(rebased)).toEqual({
      network: { deny: ['a.test', 'theirs.test', 'mine.test'] },
      isolation: { allowOff: false },
      limits: { pids: 64 },
    });
  });

  it('follows a newer part whole when nothing was edited, and ignores its own revision', () => {
    const draft = createGuardsDraft(undefined, 'r1');
    expect(rebaseGuards(draft, { limits: { pids: 1 } }, 'r1')).toBe(draft);
    const followed = rebaseGuards(draft, { hiddenPaths: ['~/x'] }, 'r2');
    expect(followed.edited.hiddenPaths).toEqual(['~/x']);
    expect(changedFields(followed)).toEqual([]);
    expect(followed.conflicts).toEqual([]);
    expect(draftGuards(followed)).toEqual({ hiddenPaths: ['~/x'] });
  });

  it('once saved, is based on what was stored, clear of conflicts, keeping edits made meanwhile', () => {
    const base = createGuardsDraft({ limits: { pids: 1 } }, 'r1');
    const sent = rebaseGuards(
      editGuards(base, { limits: { pids: 2 } }),
      { limits: { pids: 3 } },
      'r2',
    );
    expect(sent.conflicts).toEqual(['limits']);
    const stored = { limits: { pids: 2 } };
    const clean = savedGuards(sent, sent, stored, 'r3');
    expect(clean).toEqual(createGuardsDraft(stored, 'r3'));
    const meanwhile = savedGuards(editGuards(sent, { allowOff: false }), sent, stored, 'r3');
    expect(changedFields(meanwhile)).toEqual(['allowOff']);
    expect(meanwhile.conflicts).toEqual([]);
    expect(draftGuards(meanwhile)).toEqual({ limits: { pids: 2 }, isolation: { allowOff: false } });
  });

  it('says what a field holds in the stored copy, for a conflict notice', () => {
    const none = createGuardsDraft(undefined, 'r0');
    expect(storedFieldText(none, 'limits')).toBe('none set');
    expect(storedFieldText(none, 'allowOnly')).toBe('not limited');
    expect(storedFieldText(none, 'deny')).toBe('none');
    expect(storedFieldText(none, 'allowOff')).toBe('allowed');
    expect(storedFieldText(none, 'hiddenPaths')).toMatch(
      new RegExp(`^~/\\.ssh, ~/\\.aws, ~/\\.gnupg and ${DEFAULT_HIDDEN_PATHS.length - 3} more$`),
    );
    const set = createGuardsDraft(
      {
        limits: { memoryMb: 1024, pids: 50 },
        network: { deny: ['a.test'], allow: [] },
        isolation: { allowBestEffort: false },
      },
      'r1',
    );
    expect(storedFieldText(set, 'limits')).toBe('memory 1024 MB, 50 processes');
    expect(storedFieldText(set, 'allowOnly')).toBe('no destination');
    expect(storedFieldText(set, 'deny')).toBe('a.test');
    expect(storedFieldText(set, 'allowBestEffort')).toBe('not allowed');
  });
});
