import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isTrustedRendererUrl, trustedSender } from './trusted-sender';

const index = '/opt/MCP Warden/resources/app.asar/out/renderer/index.html';
const url = pathToFileURL(index).href;

describe('trusted IPC sender', () => {
  it('accepts the renderer index file, with or without a fragment', () => {
    expect(isTrustedRendererUrl(url, index)).toBe(true);
    expect(isTrustedRendererUrl(`${url}#/servers/files`, index)).toBe(true);
  });

  it('refuses every other URL', () => {
    for (const other of [
      pathToFileURL('/opt/MCP Warden/resources/app.asar/out/renderer/other.html').href,
      pathToFileURL('/tmp/index.html').href,
      `${url}?x=1`,
      'http://127.0.0.1:5173/index.html',
      'https://evil.example/opt/MCP%20Warden/resources/app.asar/out/renderer/index.html',
      'file://evil-host/opt/MCP%20Warden/resources/app.asar/out/renderer/index.html',
      'about:blank',
      'data:text/html,<script>1</script>',
      'not a url',
      '',
    ]) {
      expect(isTrustedRendererUrl(other, index), other).toBe(false);
    }
  });

  it('trusts only the top frame of a live window showing the renderer', () => {
    const trusted = trustedSender(index);
    expect(trusted({ senderFrame: { url, parent: null } })).toBe(true);
    expect(trusted({ senderFrame: { url, parent: {} } })).toBe(false);
    expect(trusted({ senderFrame: null })).toBe(false);
    expect(trusted({ senderFrame: { url: 'https://evil.example/', parent: null } })).toBe(false);
  });
});
