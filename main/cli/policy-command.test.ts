import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyView } from '../../app/contract/policy';
import type { Reply } from '../../app/contract/reply';
import type { Guards } from '../../app/policy/guards';
import { err, ok } from '../../app/result';
import { runCli } from './cli';
import { runPolicyCommand } from './policy-command';

let base: string;
let out: string;
let errs: string;
const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (errs += s) };
const cli = (...args: string[]) => runCli(args, io);

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'warden-policy-cli-'));
  process.env.WARDEN_HOME = join(base, 'home');
  process.env.WARDEN_MANAGED_POLICY = join(base, 'managed.json');
  out = '';
  errs = '';
});
afterEach(async () => {
  delete process.env.WARDEN_HOME;
  delete process.env.WARDEN_MANAGED_POLICY;
  await rm(base, { recursive: true, force: true });
});

describe('warden policy show|edit', () => {
  it('shows the default guards, then edits them', async () => {
    expect(await cli('policy', 'show')).toBe(0);
    expect(out).toContain('~/.ssh');
    expect(out).toContain('(defaults)');
    expect(out).toMatch(/managed policy: .*managed\.json \(none\)/);
    out = '';
    const edit = ['policy', 'edit', '--hide', '~/secrets', '--unhide', '~/.npmrc'];
    expect(await cli(...edit, '--deny', '*.evil.test', '--allow-off', 'no')).toBe(0);
    out = '';
    expect(await cli('policy', 'show', '--json')).toBe(0);
    const view = JSON.parse(out) as { stored: { hiddenPaths: string[] } };
    expect(view.stored.hiddenPaths).toContain('~/secrets');
    expect(view.stored.hiddenPaths).not.toContain('~/.npmrc');
    expect(view).toMatchObject({
      stored: { network: { deny: ['*.evil.test'] }, isolation: { allowOff: false } },
    });
    out = '';
    expect(await cli('audit', 'list', '--kind', 'policy.changed', '--json')).toBe(0);
    expect(out).toContain('guards.hiddenPaths');
    expect(out).toContain('guards.isolation.allowOff');
    // Isolation off is now refused by the global part, naming it.
    expect(await cli('servers', 'add', 'bare', '--isolation', 'off', '--', 'true')).toBe(2);
    expect(errs).toContain('global isolation.allowOff=false');
  });

  it('changes only what a flag names: an edit keeps the allow list and switches set before', async () => {
    const config = join(base, 'home', 'config.json');
    await mkdir(join(base, 'home'), { recursive: true });
    const guards = {
      network: { deny: ['*.old.test'], allow: ['*.corp.test'] },
      isolation: { allowOff: false, allowBestEffort: false },
      workspace: { allowExceptions: false },
      audit: { minRetentionDays: 30 },
    };
    await writeFile(config, JSON.stringify({ schemaVersion: 1, servers: [], guards }));
    expect(await cli('policy', 'edit', '--deny', '*.evil.test', '--hide', '~/secrets')).toBe(0);
    out = '';
    expect(await cli('policy', 'show', '--json')).toBe(0);
    const view = JSON.parse(out) as { stored: Record<string, unknown> };
    expect(view.stored).toMatchObject({
      ...guards,
      network: { deny: ['*.old.test', '*.evil.test'], allow: ['*.corp.test'] },
    });
    expect(view.stored.hiddenPaths).toContain('~/secrets');
    expect(view.stored.hiddenPaths).toContain('~/.ssh');
    // A server may still not break what the kept rules forbid.
    expect(
      await cli('servers', 'add', 'w', '--rw', base, '--unprotect', '.git', '--', 'true'),
    ).toBe(2);
    expect(errs).toContain('global workspace.allowExceptions=false');
    expect(errs).toContain('warden policy edit --workspace-exceptions yes');
    expect(
      await cli('servers', 'add', 'n', '--net', 'allowlist', '--allow', 'x.test', '--', 'true'),
    ).toBe(2);
    expect(errs).toContain('warden policy edit --allow-only PATTERN');
  });

  it('sets the switches and the allow list, and leaves unnamed lists at their defaults', async () => {
    const switches = ['--allow-best-effort', 'no', '--workspace-exceptions', 'no'];
    expect(await cli('policy', 'edit', ...switches, '--allow-only', '*.corp.test')).toBe(0);
    expect(out).toContain('allowed only:   *.corp.test');
    expect(out).toContain('best-effort:    not allowed');
    expect(out).toContain('workspace:      no exceptions (its files stay read-only)');
    expect(out).toContain('(defaults)');
    expect(await cli('policy', 'edit', '--allow-only', 'b.test', '--unallow', '*.corp.test')).toBe(
      0,
    );
    out = '';
    expect(await cli('policy', 'show', '--json')).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      stored: {
        network: { allow: ['b.test'] },
        isolation: { allowBestEffort: false },
        workspace: { allowExceptions: false },
      },
    });
    expect((JSON.parse(out) as { stored: Guards }).stored.hiddenPaths).toBeUndefined();
    // An empty list allows no destination; --allow-any drops the list.
    expect(await cli('policy', 'edit', '--unallow', 'b.test')).toBe(0);
    expect(out).toContain('allowed only:   (none)');
    expect(await cli('policy', 'edit', '--allow-any', '--workspace-exceptions', 'yes')).toBe(0);
    out = '';
    expect(await cli('policy', 'show', '--json')).toBe(0);
    const stored = (JSON.parse(out) as { stored: Guards }).stored;
    expect(stored.network?.allow).toBeUndefined();
    expect(stored.workspace).toEqual({ allowExceptions: true });
    out = '';
    expect(await cli('audit', 'list', '--kind', 'policy.changed', '--json')).toBe(0);
    expect(out).toContain('guards.network.allow');
    expect(out).toContain('guards.workspace.allowExceptions');
  });

  it('refuses an unknown flag or value with exit 2', async () => {
    expect(await cli('policy', 'edit', '--allow-off', 'maybe')).toBe(2);
    expect(await cli('policy', 'edit', '--unhide', '~/not-hidden')).toBe(2);
    expect(await cli('policy', 'edit')).toBe(2);
    expect(await cli('policy', 'edit', '--allow-best-effort', 'off')).toBe(2);
    expect(await cli('policy', 'edit', '--unallow', 'never.test')).toBe(2);
    expect(await cli('policy', 'edit', '--allow-any', '--allow-only', 'a.test')).toBe(2);
    expect(errs).toContain('--allow-any drops the allow list');
  });
});

describe('warden policy edit, racing another change', () => {
  const view = (stored: Guards, revision: string): PolicyView => ({
    stored,
    revision,
    applied: stored,
    managed: { path: '/nowhere', policy: null },
  });

  it('applies its flags again to a part changed between its read and its write', async () => {
    // Between the command's first read and its write, the panel set an allow list.
    const parts: Guards[] = [
      { network: { deny: ['*.a.test'] } },
      { network: { deny: ['*.a.test'], allow: ['*.corp.test'] } },
    ];
    const updates: { guards: Guards; expectedRevision: string }[] = [];
    let reads = 0;
    const core = {
      wardenHome: base,
      handle: (op: string, input: unknown): Promise<Reply> => {
        if (op === 'policy.get') {
          reads += 1;
          return Promise.resolve(ok(view(parts[Math.min(reads, 2) - 1]!, `r${reads}`)));
        }
        const update = input as (typeof updates)[number];
        updates.push(update);
        if (update.expectedRevision === 'r1')
          return Promise.resolve(err({ kind: 'conflict', message: 'changed meanwhile' }));
        return Promise.resolve(ok(view(update.guards, 'r3')));
      },
    };
    expect(await runPolicyCommand(['edit', '--deny', '*.b.test'], io, core)).toBe(0);
    expect(updates.map((u) => u.expectedRevision)).toEqual(['r1', 'r2']);
    expect(updates[1]!.guards.network).toEqual({
      deny: ['*.a.test', '*.b.test'],
      allow: ['*.corp.test'],
    });
  });

  it('gives up after a few conflicts, saying why', async () => {
    let reads = 0;
    const core = {
      wardenHome: base,
      handle: (op: string): Promise<Reply> =>
        Promise.resolve(
          op === 'policy.get'
            ? ok(view({}, `r${++reads}`))
            : err({ kind: 'conflict', message: 'the global policy changed since it was read' }),
        ),
    };
    expect(await runPolicyCommand(['edit', '--deny', '*.b.test'], io, core)).toBe(2);
    expect(reads).toBe(3);
    expect(errs).toContain('the global policy changed since it was read');
  });
});

describe('warden servers show --effective', () => {
  it('lists what applies and the layer each line comes from, exceptions marked', async () => {
    await writeFile(
      join(base, 'managed.json'),
      JSON.stringify({
        network: { deny: ['*.blocked.test'], allow: ['*.corp.test'] },
        hiddenPaths: ['~/work/secrets'],
        isolation: { allowBestEffort: false },
        workspace: { allowExceptions: false },
        audit: { minRetentionDays: 180 },
      }),
      { mode: 0o644 },
    );
    expect(await cli('policy', 'edit', '--deny', 'global.test')).toBe(0);
    expect(await cli('servers', 'add', 's', '--unhide', '~/.aws', '--', 'true')).toBe(0);
    out = '';
    expect(await cli('servers', 'show', 's', '--effective')).toBe(0);
    expect(out).toMatch(/hidden +~\/work\/secrets +\[managed\]/);
    expect(out).toMatch(/hidden +~\/\.ssh +\[default\]/);
    expect(out).toMatch(/deny +\*\.blocked\.test +\[managed\]/);
    expect(out).toMatch(/deny +global\.test +\[global\]/);
    expect(out).toMatch(/shown \(exception\) +~\/\.aws +\[server\] +EXCEPTION/);
    expect(out).not.toMatch(/hidden +~\/\.aws/);
    expect(out).toMatch(/allowed only +\*\.corp\.test +\[managed\]/);
    out = '';
    expect(await cli('policy', 'show')).toBe(0);
    expect(out).toContain('allowed only:  *.corp.test');
    expect(out).toContain('best-effort:   forbidden');
    expect(out).toContain('workspace:     no exceptions (its files stay read-only)');
    expect(out).toContain('audit keeps:   at least 180 days');
  });
});

describe('warden servers add|edit --unprotect / --protect', () => {
  it('keeps workspace files read-only in writable folders unless excepted, and says so', async () => {
    const folder = join(base, 'project');
    await mkdir(folder);
    expect(
      await cli('servers', 'add', 'w', '--rw', folder, '--unprotect', '.vscode', '--', 'true'),
    ).toBe(0);
    out = '';
    expect(await cli('servers', 'show', 'w', '--effective')).toBe(0);
    expect(out).toMatch(
      /read-only +\.git, \.idea, .*\.mcp\.json.* \(in writable folders\) +\[default\]/,
    );
    expect(out).toMatch(/write \(exception\) +\.vscode +\[server\] +EXCEPTION/);
    expect(await cli('servers', 'edit', 'w', '--protect', '.vscode', '--unprotect', '.git')).toBe(
      0,
    );
    out = '';
    expect(await cli('servers', 'show', 'w', '--json')).toBe(0);
    const shown = JSON.parse(out) as { server: { policy: { guards?: { unprotect?: string[] } } } };
    expect(shown.server.policy.guards?.unprotect).toEqual(['.git']);
    out = '';
    expect(await cli('audit', 'list', '--kind', 'policy.changed', '--json')).toBe(0);
    expect(out).toContain('policy.guards');
    expect(await cli('servers', 'edit', 'w', '--unprotect', 'node_modules')).toBe(2);
    expect(errs).toMatch(/--unprotect: expected a workspace file name \(\.git, \.vscode/);
  });

  it('shows no workspace line for a server without a writable folder', async () => {
    expect(await cli('servers', 'add', 'r', '--', 'true')).toBe(0);
    out = '';
    expect(await cli('servers', 'show', 'r', '--effective')).toBe(0);
    expect(out).not.toMatch(/read-only/);
  });
});
