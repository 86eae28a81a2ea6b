/**
 * The Policy screen's draft of the global part, kept pure so that every step is tested: the
 * part's fields as they apply (defaults filled in, as the form shows them) at one revision, the
 * user's edits, a newer revision taken in under those edits, and the part to save. A save writes
 * only what the user changed over the part as stored, so that a default the user never touched
 * stays a default (a later default reaches this home) and a field the form does not show (the
 * audit log's minimum retention) stays as stored.
 */
import { limitWords } from './limit-labels';
import { mergeThreeWay } from './policy-draft-merge';
import { type GuardLimits, type Guards, globalGuards } from './guards';

/** The global part's fields as the form edits them. */
export interface GuardsForm {
  hiddenPaths: string[];
  deny: string[];
  /** Every destination must lie within one of these; null: no such list. */
  allowOnly: string[] | null;
  limits: GuardLimits;
  allowOff: boolean;
  allowBestEffort: boolean;
  allowExceptions: boolean;
}

/** The editable fields of the form, in the order it shows them. */
export type GuardsField = keyof GuardsForm;

export interface GuardsDraft {
  /** The revision of the stored part the draft is based on; a save names it. */
  base: string;
  /** The part as stored at `base` (undefined: nothing stored, the defaults). */
  stored: Guards | undefined;
  /** The form's fields at `base`, to tell what the user changed. */
  original: GuardsForm;
  edited: GuardsForm;
  /** Fields changed both here and elsewhere since the draft began: the user's values are kept. */
  conflicts: GuardsField[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The form's fields of a stored part. */
export function guardsForm(stored: Guards | undefined): GuardsForm {
  const applied = globalGuards(stored);
  return {
    hiddenPaths: applied.hiddenPaths,
    deny: applied.network.deny,
    allowOnly: applied.network.allow ?? null,
    limits: applied.limits,
    allowOff: applied.isolation.allowOff,
    allowBestEffort: applied.isolation.allowBestEffort,
    allowExceptions: applied.workspace.allowExceptions,
  };
}

/** A fresh draft of the part stored at `revision`: nothing edited. */
export function createGuardsDraft(stored: Guards | undefined, revision: string): GuardsDraft {
  const original = guardsForm(stored);
  return { base: revision, stored, original, edited: original, conflicts: [] };
}

/** Sets some of the form's fields. */
export function editGuards(draft: GuardsDraft, change: Partial<GuardsForm>): GuardsDraft {
  return { ...draft, edited: { ...draft.edited, ...change } };
}

/** The fields the user changed. */
export function changedFields(draft: GuardsDraft): GuardsField[] {
  return (Object.keys(draft.edited) as GuardsField[]).filter(
    (k) => !same(draft.edited[k], draft.original[k]),
  );
}

/**
 * Takes in the part stored at a newer `revision`: what only the other side changed is taken in,
 * the user's edits are kept, and fields both changed differently are reported (and kept as the
 * user set them).
 */
export function rebaseGuards(
  draft: GuardsDraft,
  stored: Guards | undefined,
  revision: string,
): GuardsDraft {
  if (revision === draft.base) return draft;
  const theirs = guardsForm(stored);
  const merged = mergeThreeWay(draft.original, draft.edited, theirs, 'guards');
  // `guards.limits.memoryMb` is a conflict of the limits field.
  const conflicts = merged.conflicts.map((c) => c.split('.')[1] as GuardsField);
  return {
    base: revision,
    stored,
    original: theirs,
    edited: merged.value,
    conflicts: [...new Set([...draft.conflicts, ...conflicts])],
  };
}

/**
 * The draft once `sent` was saved, the part then stored at `revision`: based on that, keeping
 * only the edits made since `sent` (while the save was on its way). What the save resolved is no
 * conflict any more.
 */
export function savedGuards(
  current: GuardsDraft,
  sent: GuardsDraft,
  stored: Guards | undefined,
  revision: string,
): GuardsDraft {
  const saved = createGuardsDraft(stored, revision);
  const later = mergeThreeWay(sent.edited, current.edited, saved.original, 'guards');
  return { ...saved, edited: later.value };
}

const isEmptyObject = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** Drops the object fields left empty, so that a switch turned back leaves no `{}` behind. */
function withoutEmpty(guards: Guards): Guards {
  return Object.fromEntries(Object.entries(guards).filter(([, v]) => !isEmptyObject(v)));
}

/** The part to save: the stored part with the fields the user changed, and nothing else. */
export function draftGuards(draft: GuardsDraft): Guards {
  // Nested objects are replaced, never changed in place: a shallow copy keeps `stored` intact.
  const next: Guards = { ...draft.stored };
  const { edited } = draft;
  for (const field of changedFields(draft)) {
    if (field === 'hiddenPaths') next.hiddenPaths = edited.hiddenPaths;
    else if (field === 'deny') next.network = { ...next.network, deny: edited.deny };
    else if (field === 'allowOnly') {
      const { allow: _dropped, ...network } = next.network ?? {};
      next.network = edited.allowOnly ? { ...network, allow: edited.allowOnly } : network;
    } else if (field === 'limits') {
      const limits = Object.entries(edited.limits).filter(([, v]) => v !== undefined);
      next.limits = Object.fromEntries(limits);
    } else if (field === 'allowExceptions')
      next.workspace = { ...next.workspace, allowExceptions: edited.allowExceptions };
    else next.isolation = { ...next.isolation, [field]: edited[field] };
  }
  return withoutEmpty(next);
}

/** A list in a sentence: its first three entries and how many more. */
function listText(list: readonly string[]): string {
  if (list.length === 0) return 'none';
  const more = list.length > 3 ? ` and ${list.length - 3} more` : '';
  return `${list.slice(0, 3).join(', ')}${more}`;
}

/** What `field` holds in the stored copy the draft is based on, in words (for a conflict notice). */
export function storedFieldText(draft: GuardsDraft, field: GuardsField): string {
  const form = draft.original;
  switch (field) {
    case 'hiddenPaths':
    case 'deny':
      return listText(form[field]);
    case 'allowOnly':
      if (form.allowOnly === null) return 'not limited';
      return form.allowOnly.length === 0 ? 'no destination' : `only ${listText(form.allowOnly)}`;
    case 'limits': {
      const set = (Object.keys(limitWords) as (keyof GuardLimits)[]).flatMap((k) => {
        const n = form.limits[k];
        return n === undefined ? [] : [limitWords[k](n)];
      });
      return set.length > 0 ? set.join(', ') : 'none set';
    }
    default:
      return form[field] ? 'allowed' : 'not allowed';
  }
}
