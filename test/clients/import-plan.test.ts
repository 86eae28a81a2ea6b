/** The pure import logic: variables, secrets, warnings, presets and VS Code's sandbox block. */
import { describe, expect, it } from 'vitest';
import { readEntry } from '../../app/clients/client-entries';
import { type PlanContext, planEntries, uniqueServerName } from '../../app/clients/import-plan';
import { unifiedDiff } from '../../app/clients/line-diff';
import { matchLauncher, packageName } from '../../app/clients/preset-types';
import { riskWarnings } from '../../app/clients/risk-warnings';
import { looksSecretValue, mapEnvValue, resolvePath } from '../../app/clients/variables';
import { builtinCatalogue } from '../../main/clients/clients-context';
import { formatCommandLine } from '../../main/core/command-line';

const home = '/home/ada';
const ctx: PlanContext = {
  client: 'vscode',
  catalogue: builtinCatalogue(),
  places: { home, cache: `${home}/.cache`, dataHome: `${home}/.local/share` },
  separator: '/',
  inputs: { key: { password: true } },
  taken: new Set(['memory']),
  importedAs: {},
  commandLine: formatCommandLine,
  secretRef: (entry, key) => `import:${entry}:${key}`,
};
const plan = (name: string, value: unknown, workspace?: string) =>
  planEntries([readEntry('vscode', name, ['servers', name], value, workspace)], ctx)[0]!;

describe('variables', () => {
  it('resolves home and workspace paths, keeps the rest as references', () => {
    expect(resolvePath('${userHome}/x', { home, separator: '/' })).toEqual({
      value: `${home}/x`,
      unresolved: [],
    });
    expect(resolvePath('~/x', { home, separator: '/' }).value).toBe(`${home}/x`);
    expect(
      resolvePath('${workspaceFolder}/a', { home, separator: '/', workspace: '/w' }).value,
    ).toBe('/w/a');
    expect(resolvePath('${workspaceFolder}/a', { home, separator: '/' }).unresolved).toEqual([
      '${workspaceFolder}',
    ]);
  });

  it('classifies env values: references stay references, literal secrets are set apart', () => {
    expect(mapEnvValue('GITHUB_TOKEN', '${GITHUB_TOKEN}')).toEqual({
      kind: 'pass',
      name: 'GITHUB_TOKEN',
    });
    expect(mapEnvValue('X', '${env:X}')).toEqual({ kind: 'pass', name: 'X' });
    expect(mapEnvValue('A', '${env:B}').kind).toBe('reference');
    expect(mapEnvValue('A', '${A:-default}').kind).toBe('reference');
    expect(mapEnvValue('K', '${input:key}')).toMatchObject({ kind: 'input', id: 'key' });
    expect(mapEnvValue('API_KEY', 'abc').kind).toBe('secret');
    expect(mapEnvValue('SOMETHING', 'sk-live-123').kind).toBe('secret');
    expect(mapEnvValue('LOG_LEVEL', 'debug').kind).toBe('plain');
    expect(looksSecretValue('a'.repeat(20) + '1234567890ABCDEFGH')).toBe(true);
    expect(looksSecretValue('/usr/share/some/long/path/with/1234567890')).toBe(false);
  });
});

describe('plans', () => {
  it('a literal token becomes a Warden secret ref; its value is only in the secrets list', () => {
    const p = plan('gh', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_abcdefabcdefabcdefabcdef12345678' },
    });
    expect(p.candidate.policy?.env.set.GITHUB_PERSONAL_ACCESS_TOKEN).toEqual({
      kind: 'secret',
      ref: 'import:gh:GITHUB_PERSONAL_ACCESS_TOKEN',
    });
    expect(JSON.stringify(p.candidate)).not.toContain('ghp_abcdef');
    expect(p.secrets).toEqual([
      {
        ref: 'import:gh:GITHUB_PERSONAL_ACCESS_TOKEN',
        key: 'GITHUB_PERSONAL_ACCESS_TOKEN',
        value: 'ghp_abcdefabcdefabcdefabcdef12345678',
      },
    ]);
    expect(p.candidate.policy?.network.allow).toEqual(
      expect.arrayContaining(['registry.npmjs.org', 'api.github.com']),
    );
  });

  it('npx gets its cache and the registry; the filesystem server gets its folders', () => {
    const p = plan('fs', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem@1.0', '${userHome}/Documents'],
    });
    expect(p.candidate.presets).toEqual(['npx', 'filesystem']);
    expect(p.candidate.policy?.filesystem.roots).toEqual([
      { path: `${home}/.npm`, access: 'write' },
      { path: `${home}/Documents`, access: 'write' },
    ]);
    expect(p.candidate.roots.every((r) => r.why.length > 0)).toBe(true);
    expect(p.candidate.policy?.network).toMatchObject({
      mode: 'allowlist',
      allow: ['registry.npmjs.org'],
    });
    // Its path arguments are checked against those folders before each call.
    expect(p.candidate.policy?.tools.argRules).toContainEqual({
      tool: '*',
      arg: 'path',
      rule: 'within-roots',
    });
    expect(p.candidate.notes.join('\n')).toContain('*:path:within-roots');
  });

  it("package launchers point their tool's cache at the granted folder (a warm cache in the sandbox)", () => {
    const npx = plan('n', { command: 'npx', args: ['-y', 'pkg'] }).candidate.policy!;
    expect(npx.env.set.npm_config_cache).toEqual({ kind: 'plain', value: `${home}/.npm` });
    expect(npx.filesystem.roots).toContainEqual({ path: `${home}/.npm`, access: 'write' });
    for (const [command, args] of [
      ['uvx', ['mcp-server-time']],
      ['uv', ['tool', 'run', 'mcp-server-time']],
    ] as const) {
      const policy = plan('u', { command, args: [...args] }).candidate.policy!;
      expect(policy.env.set.UV_CACHE_DIR).toEqual({ kind: 'plain', value: `${home}/.cache/uv` });
      expect(policy.filesystem.roots).toContainEqual({
        path: `${home}/.cache/uv`,
        access: 'write',
      });
    }
    const pipx = plan('p', { command: 'pipx', args: ['run', 'pkg'] }).candidate.policy!;
    expect(pipx.env.set.PIP_CACHE_DIR).toEqual({ kind: 'plain', value: `${home}/.cache/pipx/pip` });
    // The client's own setting wins over the preset's.
    const own = plan('o', { command: 'npx', args: ['-y', 'pkg'], env: { npm_config_cache: '/x' } });
    expect(own.candidate.policy!.env.set.npm_config_cache).toEqual({ kind: 'plain', value: '/x' });
    // npx gets the user's npm allow-scripts, which npm inside the sandbox cannot read.
    expect(npx.env.set).not.toHaveProperty('npm_config_allow_scripts');
    const approved = planEntries(
      [readEntry('vscode', 'a', ['servers', 'a'], { command: 'npx', args: ['-y', 'pkg'] })],
      { ...ctx, places: { ...ctx.places, npmrc: { 'allow-scripts': 'sharp' } } },
    )[0]!.candidate;
    expect(approved.policy!.env.set.npm_config_allow_scripts).toEqual({
      kind: 'plain',
      value: 'sharp',
    });
    expect(approved.notes.join('\n')).toContain('npm_config_allow_scripts');
    // The card lists what the preset sets beside the client's own variables, saying who set it.
    expect(approved.env).toEqual([
      {
        key: 'npm_config_cache',
        kind: 'preset',
        shown: `${home}/.npm (set by Warden's npx preset)`,
      },
      {
        key: 'npm_config_allow_scripts',
        kind: 'preset',
        shown: "sharp (set by Warden's npx preset)",
      },
    ]);
    const mixed = planEntries(
      [
        readEntry('vscode', 'm', ['servers', 'm'], {
          command: 'npx',
          args: ['-y', 'pkg'],
          env: { LOG_LEVEL: 'debug' },
        }),
      ],
      ctx,
    )[0]!.candidate;
    expect(mixed.env.map((e) => [e.key, e.kind])).toEqual([
      ['LOG_LEVEL', 'plain'],
      ['npm_config_cache', 'preset'],
    ]);
    // Launchers without a package cache set nothing.
    expect(
      plan('s', { command: 'node', args: [`${home}/s.js`] }).candidate.policy!.env.set,
    ).toEqual({});
  });

  it('a node script gets its own folder read-only; a binary in home its folder', () => {
    expect(
      plan('s', { command: 'node', args: [`${home}/srv/index.js`] }).candidate.policy?.filesystem
        .roots,
    ).toEqual([{ path: `${home}/srv`, access: 'read' }]);
    expect(
      plan('b', { command: `${home}/bin/tool`, args: [] }).candidate.policy?.filesystem.roots,
    ).toEqual([{ path: `${home}/bin`, access: 'read' }]);
    expect(
      plan('u', { command: 'uvx', args: ['mcp-server-git', '--repository', '/w/repo'] }).candidate
        .policy?.filesystem.roots,
    ).toContainEqual({ path: '/w/repo', access: 'write' });
    expect(
      plan('q', { command: 'uvx', args: ['mcp-server-sqlite', '--db-path=/w/d/x.db'] }).candidate
        .policy?.filesystem.roots,
    ).toContainEqual({ path: '/w/d', access: 'write' });
  });

  it("maps VS Code's sandbox block onto the policy and says what it cannot express", () => {
    const p = plan(
      'e',
      {
        type: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything'],
        sandboxEnabled: true,
        sandbox: {
          filesystem: { allowWrite: ['${workspaceFolder}/out'], denyRead: ['~/.ssh'] },
          network: { allowedDomains: ['example.com'], deniedDomains: ['bad.example.com'] },
        },
      },
      '/w',
    );
    const policy = p.candidate.policy!;
    expect(policy.isolation).toBe('sandbox');
    expect(policy.filesystem.roots).toContainEqual({ path: '/w/out', access: 'write' });
    expect(policy.network.allow).toContain('example.com');
    expect(policy.network.deny).toEqual(['bad.example.com']);
    expect(p.candidate.notes.join(' ')).toContain('~/.ssh');
  });

  it('VS Code password inputs stay references with a note; names never clash', () => {
    const p = plan('memory', { command: 'x', env: { K: '${input:key}' } });
    expect(p.candidate.name).toBe('memory-vscode');
    expect(p.candidate.policy?.env.set.K).toEqual({ kind: 'plain', value: '${input:key}' });
    expect(p.candidate.notes.join(' ')).toMatch(/a password.*as a secret/);
    expect(uniqueServerName('weird name!', 'cursor', new Set())).toBe('weird-name');
    expect(uniqueServerName('!!!', 'cursor', new Set())).toBe('server');
  });

  it('remote entries become remote servers with their host allowed and their headers kept as secrets; unrunnable entries say why', () => {
    const remote = plan('r', {
      type: 'http',
      url: 'https://x.example/mcp',
      headers: { Authorization: 'Bearer imported-token-value' },
    });
    expect(remote.candidate).toMatchObject({
      status: 'ready',
      remote: { url: 'https://x.example/mcp', transport: 'streamable-http' },
    });
    expect(remote.candidate.policy?.network).toMatchObject({
      mode: 'allowlist',
      allow: ['x.example:443'],
    });
    expect(JSON.stringify(remote.candidate)).not.toContain('imported-token-value');
    expect(remote.headers).toEqual([
      expect.objectContaining({ name: 'Authorization', value: 'Bearer imported-token-value' }),
    ]);
    expect(plan('s', { type: 'sse', url: 'http://127.0.0.1:9/sse' }).candidate).toMatchObject({
      remote: { transport: 'sse' },
      warnings: [expect.objectContaining({ kind: 'private-address' })],
    });
    expect(plan('i', { args: [] }).candidate).toMatchObject({ status: 'invalid' });
    expect(
      plan('w', { command: '/usr/bin/node', args: ['/opt/w/bin/warden.js', 'connect', 'memory'] })
        .candidate,
    ).toMatchObject({ status: 'through-warden', name: 'memory' });
  });
});

describe('warnings', () => {
  it('flags sudo, shell strings, curl | sh, home paths and docker', () => {
    const kinds = (c: string, a: string[]) => riskWarnings(c, a, home).map((w) => w.kind);
    expect(kinds('sudo', ['x'])).toContain('sudo');
    expect(kinds('/bin/bash', ['-c', 'echo hi'])).toContain('shell-string');
    expect(kinds('sh', ['-c', 'curl -fsSL https://x | bash'])).toEqual(
      expect.arrayContaining(['shell-string', 'pipe-to-shell']),
    );
    expect(kinds('node', [`${home}/x.js`])).toEqual(['home-path']);
    expect(kinds('docker', ['run', '-i', 'img'])).toEqual(['docker']);
    expect(kinds('npx', ['-y', 'pkg'])).toEqual([]);
  });
});

describe('presets and diff', () => {
  it('matches launchers with subcommands and strips versions', () => {
    const cat = builtinCatalogue();
    expect(matchLauncher(cat, 'pipx', ['run', 'mcp-server-fetch'])?.preset.id).toBe('pipx');
    expect(matchLauncher(cat, 'pipx', ['install', 'x'])).toBeUndefined();
    expect(matchLauncher(cat, 'C:\\node\\npx.cmd', ['-y', 'a'])?.target).toBe('a');
    expect(packageName('@scope/pkg@1.2.3')).toBe('@scope/pkg');
    expect(packageName('mcp-server-fetch==1.0')).toBe('mcp-server-fetch');
  });

  it('a unified diff shows removed lines before added ones, with context', () => {
    const d = unifiedDiff('a\nb\nc\nd\n', 'a\nB\nc\nd\n', 'f');
    expect(d).toBe('--- f (now)\n+++ f (after)\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n \n');
    expect(unifiedDiff('x', 'x', 'f')).toBe('');
  });
});

describe('installed node packages', () => {
  it('a script inside node_modules gets node_modules read-only and its catalogue entry', () => {
    const p = plan('m', {
      command: '/usr/bin/node',
      args: ['/w/node_modules/@modelcontextprotocol/server-memory/dist/index.js'],
      env: { MEMORY_FILE_PATH: '/data/mem/memory.json' },
    });
    expect(p.candidate.presets).toEqual(['node', 'memory']);
    expect(p.candidate.policy?.filesystem.roots).toEqual([
      { path: '/w/node_modules', access: 'read' },
      { path: '/w/node_modules/@modelcontextprotocol/server-memory/dist', access: 'read' },
      { path: '/data/mem', access: 'write' },
    ]);
    expect(p.candidate.policy?.network.mode).toBe('none');
  });
});
