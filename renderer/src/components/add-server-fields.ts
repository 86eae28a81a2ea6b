/** How the Add server form's fields map to the contract, kept apart so it can be tested alone. */

export type Field = 'name' | 'command' | 'args' | 'folders' | 'isolation' | 'url' | 'headers';

/** Maps a core field path (e.g. `launch.args[2]`) to the form field that edits it. */
export function formFieldOf(path: string): Field | undefined {
  if (path === 'name') return 'name';
  if (path.startsWith('launch.command')) return 'command';
  if (path.startsWith('launch.args')) return 'args';
  if (path.startsWith('policy.filesystem.roots')) return 'folders';
  if (path.startsWith('policy.isolation')) return 'isolation';
  if (path.startsWith('remote.url')) return 'url';
  if (path.startsWith('remote.headers')) return 'headers';
  return undefined;
}

/** Splits the arguments box: one argument per line, blank lines ignored, nothing else touched. */
export function argsFromText(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '');
}

/**
 * The headers box of a remote server: one `Name: value` per line, blank lines ignored. A line
 * without a colon becomes a header with an empty value, which the core refuses by name.
 */
export function headersFromText(text: string): { name: string; value: string }[] {
  return argsFromText(text).map((line) => {
    const at = line.indexOf(':');
    return at < 0
      ? { name: line.trim(), value: '' }
      : { name: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
  });
}
