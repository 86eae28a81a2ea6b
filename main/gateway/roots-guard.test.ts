import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { folderRefusal } from './roots-guard';

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
