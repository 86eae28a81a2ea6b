/** The red banner for a taken gateway port: owner, revoked tokens and remedy, owner text escaped. */
import { describe, expect, it } from 'vitest';
import { gatewayBannerText } from '../../../renderer/src/components/gateway-banner-text';

describe('gatewayBannerText', () => {
  it('names the owner of a taken port, the revoked tokens and the remedy', () => {
    expect(
      gatewayBannerText({
        kind: 'port-taken',
        port: 47821,
        owner: 'a process of user bob (uid 1001), pid 42 (py\u202ethon)',
        revoked: ['cursor (/home/ada/.cursor/mcp.json)'],
        remedy: 'stop that program and start Warden again',
      }),
    ).toEqual([
      'The MCP gateway is not running: its port 127.0.0.1:47821 is held by a process of user bob (uid 1001), pid 42 (py\\u202ethon), not by Warden. AI clients pointed at it would send their requests and tokens to that program.',
      'Revoked the gateway tokens of cursor (/home/ada/.cursor/mcp.json); each gets a new one once Warden holds its port again.',
      'To fix: stop that program and start Warden again.',
    ]);
  });

  it('says nothing while the gateway runs or is off', () => {
    expect(gatewayBannerText({ kind: 'running', port: 1 })).toEqual([]);
    expect(gatewayBannerText({ kind: 'off' })).toEqual([]);
  });
});
