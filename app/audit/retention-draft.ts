/**
 * The retention form's draft, kept pure so that every step is tested: the two limits as the form
 * shows them (text, empty for no limit) at one revision, the user's edits, and a newer revision
 * taken in under those edits. A save names the revision the draft is based on, so that limits
 * changed elsewhere are never written back unseen: shrinking retention removes rows at once.
 */
import { mergeThreeWay } from '../policy/policy-draft-merge';
import type { AuditRetention } from './audit-settings';

/** The form's fields: each limit as typed. */
export interface RetentionText {
  size: string;
  age: string;
}
export type RetentionField = keyof RetentionText;

export interface RetentionDraft {
  /** The revision of the stored settings the draft is based on. */
  base: string;
  /** The fields as stored at `base`. */
  original: RetentionText;
  edited: RetentionText;
  /** Fields changed both here and elsewhere since the draft began: the user's values are kept. */
  conflicts: RetentionField[];
}

const shown = (n: number | null) => (n === null ? '' : String(n));

/** The form's fields of stored limits. */
export function retentionText(r: AuditRetention): RetentionText {
  return { size: shown(r.maxSizeMb), age: shown(r.maxAgeDays) };
}

/** A fresh draft of the limits stored at `revision`: nothing edited. */
export function createRetentionDraft(r: AuditRetention, revision: string): RetentionDraft {
  const original = retentionText(r);
  return { base: revision, original, edited: original, conflicts: [] };
}

/** Whether the user changed anything. */
export function retentionEdited(draft: RetentionDraft): boolean {
  return draft.edited.size !== draft.original.size || draft.edited.age !== draft.original.age;
}

/**
 * Takes in the limits stored at a newer `revision`: a field only the other side changed is taken
 * in, the user's edits are kept, and fields both changed differently are reported.
 */
export function rebaseRetention(
  draft: RetentionDraft,
  r: AuditRetention,
  revision: string,
): RetentionDraft {
  if (revision === draft.base) return draft;
  const theirs = retentionText(r);
  const merged = mergeThreeWay(draft.original, draft.edited, theirs, 'retention');
  const conflicts = merged.conflicts.map((c) => c.split('.')[1] as RetentionField);
  return {
    base: revision,
    original: theirs,
    edited: merged.value,
    conflicts: [...new Set([...draft.conflicts, ...conflicts])],
  };
}

/**
 * The draft once `sent` was saved and the limits then stored at `revision`: based on those,
 * keeping only what the user typed while the save was on its way.
 */
export function savedRetention(
  current: RetentionDraft,
  sent: RetentionDraft,
  r: AuditRetention,
  revision: string,
): RetentionDraft {
  const saved = createRetentionDraft(r, revision);
  const later = mergeThreeWay(sent.edited, current.edited, saved.original, 'retention');
  return { ...saved, edited: later.value };
}

/** A limit as typed: null for none (empty), undefined when not a whole number of 1 or more. */
export function parseLimit(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  return /^\d+$/.test(t) && Number(t) >= 1 ? Number(t) : undefined;
}
