import { describe, expect, it } from 'vitest';
import { isHiddenCodePoint, showUntrusted } from './untrusted-text';

describe('showUntrusted', () => {
  it('escapes terminal control sequences so none reaches the terminal', () => {
    const hostile = '\u001b]52;c;ZXZpbA==\u0007\u001b]0;title\u0007\u001b[2J\r\u001b[4A done';
    const shown = showUntrusted(hostile);
    expect(shown).toBe('\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;title\\x07\\x1b[2J\\x0d\\x1b[4A done');
    expect([...shown].some((ch) => isHiddenCodePoint(ch.codePointAt(0) ?? 0))).toBe(false);
  });

  it('escapes C1 controls, DEL, bidi overrides, isolates and invisible marks', () => {
    expect(showUntrusted('a\u009bb\u007fc')).toBe('a\\x9bb\\x7fc');
    expect(showUntrusted('safe\u202egnp.exe')).toBe('safe\\u202egnp.exe');
    expect(showUntrusted('\u2066x\u2069\u200e\u200f\ufeff')).toBe(
      '\\u2066x\\u2069\\u200e\\u200f\\ufeff',
    );
  });

  it('keeps ordinary text, non-Latin scripts and emoji exactly', () => {
    const text = 'Café – 東京 — שלום 🙂 npx -y @scope/pkg';
    expect(showUntrusted(text)).toBe(text);
  });

  it('keeps line feeds and tabs only in multiline mode', () => {
    expect(showUntrusted('a\nb\tc')).toBe('a\\x0ab\\x09c');
    expect(showUntrusted('a\nb\tc\r', { multiline: true })).toBe('a\nb\tc\\x0d');
  });
});
