/**
 * `--unhide PATH` must name a hidden path a server inherits, or take back the server's own
 * `--hide PATH`: a path nothing hides is refused (a typo would otherwise pass for a change), from
 * `servers add`, `servers edit` and `exec` alike.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { exceptHiddenPath, hidePath } from '../../app/policy/policy-edits';
import { runCli } from './cli';
import { UsageError } from './cli-io';
import { settleUnhides } from './unhide-check';

const inherited = ['~/.ssh', '~/.aws'];

describe('settleUnhides', () => {
  it('keeps an exception for an inherited path, and one the server had', () => {
    const after = exceptHiddenPath(defaultPolicy(), '~/.aws', true);
    expect(settleUnhides(defaultPolicy(), after, inherited)).toBe(after);
    // A path that stopped being inherited since is left as the server had it.
    const stale = exceptHiddenPath(defaultPolicy(), '~/old', true);
    const more = exceptHiddenPath(stale, '~/.ssh', true);
    expect(settleUnhides(stale, more, inherited).guards?.unhide).toEqual(['~/old', '~/.ssh']);
  });

  it('refuses a path nothing hides, naming the hidden paths', () => {
    const typo = exceptHiddenPath(defaultPolicy(), '~/.shh', true);
    expect(() => settleUnhides(defaultPolicy(), typo, inherited)).toThrow(UsageError);
    expect(() => settleUnhides(defaultPolicy(), typo, inherited)).toThrow(
      '--unhide: nothing hides "~/.shh", so it would change nothing; the hidden paths a server inherits are ~/.ssh, ~/.aws',
    );
  });

  it("takes back the server's own --hide without leaving an exception behind", () => {
    const hidden = hidePath(defaultPolicy(), '~/notes');
    const undone = exceptHiddenPath(hidden, '~/notes', true);
    expect(undone.guards?.unhide).toEqual(['~/notes']);
    const settled = settleUnhides(hidden, undone, inherited);
    expect(settled.guards).toBeUndefined();
    expect(settled).toEqual(defaultPolicy());
  });
});

describe('the commands', () => {
  let base: string;
  let errs = '';
  const io = { stdout: () => undefined, stderr: (s: string) => void (errs += s) };
  const cli = (...args: string[]) => runCli(args, io);
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'warden-unhide-'));
    process.env.WARDEN_HOME = join(base, 'home');
    process.env.WARDEN_MANAGED_POLICY = join(base, 'managed.json');
    errs = '';
  });
  afterEach(async () => {
    delete process.env.WARDEN_HOME;
    delete process.env.WARDEN_MANAGED_POLICY;
    await rm(base, { recursive: true, force: true });
  });

  it('servers add and edit refuse a path nothing hides, and save nothing', async () => {
    expect(await cli('servers', 'add', 's', '--unhide', '~/.awss', '--', 'true')).toBe(2);
    expect(errs).toContain('--unhide: nothing hides "~/.awss"');
    expect(errs).toContain('~/.aws');
    expect(await cli('servers', 'add', 's', '--hide', '~/notes', '--', 'true')).toBe(0);
    errs = '';
    expect(await cli('servers', 'edit', 's', '--unhide', '~/.sssh')).toBe(2);
    expect(errs).toContain('--unhide: nothing hides "~/.sssh"');
    expect(await cli('servers', 'edit', 's', '--unhide', '~/notes', '--unhide', '~/.ssh')).toBe(0);
    const config = await readFile(join(base, 'home', 'config.json'), 'utf8');
    const server = (JSON.parse(config) as { servers: { policy: { guards?: unknown } }[] })
      .servers[0]!;
    expect(server.policy.guards).toEqual({ hide: [], unhide: ['~/.ssh'] });
  });

  it('exec refuses a path nothing hides before starting anything', async () => {
    expect(await cli('exec', '--unhide', '~/.kubee', '--', 'true')).toBe(2);
    expect(errs).toContain('--unhide: nothing hides "~/.kubee"');
  });
});
