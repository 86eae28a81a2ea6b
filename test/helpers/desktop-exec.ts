/**
 * An Exec value read back as the Desktop Entry spec says a launcher reads it: the string escape
 * first (`\\` is one backslash), then the words, quoted or not, then `%%` as a literal `%`.
 */
export function execWords(value: string): string[] {
  const text = value.replace(/\\(.)/g, (_, c: string) => (c === '\\' ? '\\' : `\\${c}`));
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    let word = '';
    if (text[i] === '"') {
      i++;
      while (text[i] !== '"') {
        if (i >= text.length) throw new Error('unterminated quote');
        if (text[i] === '\\') i++;
        word += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== ' ') word += text[i++];
    }
    words.push(word.replaceAll('%%', '%'));
  }
  return words;
}
