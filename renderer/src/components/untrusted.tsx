/**
 * Text from a server, a client's file or the network, rendered with its control, bidi and
 * invisible characters visible (`\x1b`, `\u202e`): React escapes HTML, not characters that make
 * one string read as another.
 */
import { showUntrusted } from '../../../app/text/untrusted-text';

/** Renders `text` escaped; `multiline` keeps line feeds and tabs (diffs, logs). */
export function Untrusted(props: { text: string; multiline?: boolean }) {
  return <>{showUntrusted(props.text, { multiline: props.multiline === true })}</>;
}
