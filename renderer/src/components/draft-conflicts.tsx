/**
 * The notice of a form edited as a draft (a server's policy, the inherited guards, the audit
 * retention) once another window or a hand edit changed a field the user changed too: each field
 * with the value stored now, and that the user's values are kept until they save or discard.
 */
export function DraftConflicts(props: { fields: readonly string[] }) {
  if (props.fields.length === 0) return null;
  return (
    <p className="notice notice-warn" data-draft-conflicts>
      Also changed elsewhere while you edited: {props.fields.join(', ')}. Your values are kept: save
      to keep them, or discard your changes to take the stored ones.
    </p>
  );
}
