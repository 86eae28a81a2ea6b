/** A client file nested many thousands deep (a cloned project's config, say) is refused, not fatal. */
import { describe, expect, it } from 'vitest';
import { parseClientText } from '../../main/clients/client-file';

describe('parseClientText', () => {
  it('refuses a file nested 200,000 deep with a clear error instead of overflowing the stack', () => {
    const text = `{"servers":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const parsed = parseClientText('vscode', '.vscode/mcp.json', text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error.message).toBe(
      '.vscode/mcp.json is nested too deeply to read',
    );
  });
});
