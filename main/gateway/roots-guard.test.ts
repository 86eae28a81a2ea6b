import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { folderGuard, folderRefusal } from './roots-guard';

describe('folderRefusal', () => {
  const facts = { home: '/home/u', wardenHome: '/home/u/.config/mcp-warden' };
  it('refuses hidden paths, Warden state, and the sandbox own folders', () => {
    const policy = defaultPolicy();
    expect(folderRefusal('/home/u/.ssh', policy, facts)).toContain('hidden path ~/.ssh');
    expect(folderRefusal('/home/u/.aws/creds', policy, facts)).toContain('hidden path');
    expect(folderRefusal('/home/u/.config/mcp-warden/instances', policy, facts)).toContain(
      "Warden's own state",
    );
    expect(folderRefusal('/tmp', policy, facts)).toContain("sandbox's own");
    expect(folderRefusal('/', policy, facts)).toContain("sandbox's own");
    expect(folderRefusal('/proc/1', policy, facts)).toContain('/proc');
    expect(folderRefusal('/home/u/project', policy, facts)).toBeUndefined();
  });
});

describe('folderGuard', () => {
  it('refuses a folder the effective policy hides (the managed layer folded in), and fails closed', async () => {
    const hidden = defaultPolicy();
    hidden.guards = { hide: ['/srv/managed-secret'], unhide: [] };
    const guard = folderGuard({
      policy: () => defaultPolicy(),
      effective: () => Promise.resolve({ ok: true as const, value: hidden }),
      home: '/home/u',
      wardenHome: '/home/u/.config/mcp-warden',
    });
    expect(await guard('/srv/managed-secret/repo')).toContain('hidden path /srv/managed-secret');
    expect(await guard('/srv/project')).toBeUndefined();
    const unreadable = folderGuard({
      policy: () => defaultPolicy(),
      effective: () =>
        Promise.resolve({
          ok: false as const,
          error: { message: 'the managed policy is unreadable' },
        }),
      home: undefined,
      wardenHome: '/w',
    });
    expect(await unreadable('/srv/project')).toBe('the managed policy is unreadable');
  });
});
