/**
 * Argument rules proposed for well-known servers: at import, and for a server added by hand
 * (the Add form and `warden servers add`), where they only fill a policy that has none.
 */
import { describe, expect, it } from 'vitest';
import { withLauncherCaches } from '../../app/clients/launcher-cache';
import { proposePolicy } from '../../app/clients/propose-policy';
import { argRuleText } from '../../app/policy/arg-rules';
import { defaultPolicy } from '../../app/policy/defaults';
import { policySchema } from '../../app/policy/policy-schema';
import { builtinCatalogue } from '../../main/clients/clients-context';

const home = '/home/u';
const places = { home, cache: `${home}/.cache`, dataHome: `${home}/.local/share` };
const catalogue = builtinCatalogue();
const rulesOf = (p: { tools: { argRules?: { tool: string; arg: string; rule: string }[] } }) =>
  (p.tools.argRules ?? []).map(argRuleText);

describe('argument rules of well-known servers', () => {
  it('are proposed at import for the filesystem, git, fetch and browser servers', () => {
    const propose = (command: string, ...args: string[]) =>
      rulesOf(proposePolicy({ command, args }, {}, catalogue, places).policy);
    expect(propose('npx', '-y', '@modelcontextprotocol/server-filesystem', '/srv/docs')).toEqual(
      expect.arrayContaining(['*:path:within-roots', 'move_file:destination:within-roots']),
    );
    expect(propose('uvx', 'mcp-server-git', '--repository', '/srv/repo')).toEqual([
      '*:repo_path:within-roots',
    ]);
    expect(propose('uvx', 'mcp-server-fetch')).toEqual(['fetch:url:host-allowed']);
    expect(propose('npx', '@playwright/mcp@latest')).toEqual(['browser_navigate:url:host-allowed']);
    expect(propose('npx', '-y', '@modelcontextprotocol/server-memory')).toEqual([]);
  });

  it('are added to a server added by hand that has none, and leave chosen rules alone', () => {
    const launch = {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
    };
    const added = withLauncherCaches(launch, defaultPolicy(), catalogue, places);
    expect(added.argRules).toContain('*:path:within-roots');
    expect(rulesOf(added.policy)).toEqual(added.argRules);
    expect(policySchema.safeParse(added.policy).success).toBe(true);

    const own = defaultPolicy();
    own.tools.argRules = [{ tool: 'read_file', arg: 'path', rule: 'within=/srv' }];
    const kept = withLauncherCaches(launch, own, catalogue, places);
    expect(kept.argRules).toEqual([]);
    expect(rulesOf(kept.policy)).toEqual(['read_file:path:within=/srv']);

    const plain = withLauncherCaches(
      { command: 'npx', args: ['some-other-server'] },
      defaultPolicy(),
      catalogue,
      places,
    );
    expect(plain.argRules).toEqual([]);
    expect(plain.policy.tools.argRules).toBeUndefined();
  });

  it('the git server alone may write .git, said in a note (not one added by hand)', () => {
    const git = proposePolicy(
      { command: 'uvx', args: ['mcp-server-git', '--repository', '/srv/repo'] },
      {},
      catalogue,
      places,
    );
    expect(git.policy.guards?.unprotect).toEqual(['.git']);
    expect(git.notes.join('\n')).toMatch(/Git writes \.git in its folders.*an exception/);
    const fs = proposePolicy(
      { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/docs'] },
      {},
      catalogue,
      places,
    );
    expect(fs.policy.guards?.unprotect).toBeUndefined();
    const byHand = withLauncherCaches(
      { command: 'uvx', args: ['mcp-server-git', '--repository', '/srv/repo'] },
      defaultPolicy(),
      catalogue,
      places,
    );
    expect(byHand.policy.guards?.unprotect).toBeUndefined();
  });
});
