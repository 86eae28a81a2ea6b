import { describe, expect, it } from 'vitest';
import { parseRemoteFlags } from '../../../main/cli/remote-flags';

const url = 'https://mcp.example.com/mcp';

describe('servers add --oauth', () => {
  it('marks the remote server as signing in, with the scopes asked for', () => {
    expect(parseRemoteFlags(['--url', url, '--oauth']).remote?.oauth).toEqual({});
    expect(
      parseRemoteFlags(['--url', url, '--oauth-scope', 'read', '--oauth-scope=write']).remote
        ?.oauth,
    ).toEqual({ scopes: ['read', 'write'] });
    expect(parseRemoteFlags(['--url', url]).remote?.oauth).toBeUndefined();
  });

  it('refuses --oauth without --url and a scope that is not one token', () => {
    expect(() => parseRemoteFlags(['--oauth'])).toThrow(/need --url/);
    expect(() => parseRemoteFlags(['--url', url, '--oauth-scope', 'read write'])).toThrow(
      /--oauth-scope: expected one scope token/,
    );
  });
});
