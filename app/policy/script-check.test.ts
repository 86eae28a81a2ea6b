import { describe, expect, it } from 'vitest';
import { defaultPolicy } from './defaults';
import type { Policy } from './policy-schema';
import { checkScript, scriptArgument } from './script-check';

const withRoots = (...paths: string[]): Policy => {
  const policy = defaultPolicy();
  for (const path of paths) policy.filesystem.roots.push({ path, access: 'read' });
  return policy;
};

describe('scriptArgument', () => {
  it.each([
    ['node', ['some/dir/server.js'], 'some/dir/server.js'],
    [
      '/usr/bin/node',
      ['--require', 'x', '--enable-source-maps', '/a/b.mjs', '--port', '1'],
      '/a/b.mjs',
    ],
    ['node20', ['-r=x', 'srv.cjs'], 'srv.cjs'],
    ['python3.12', ['-u', '/srv/mcp/server.py'], '/srv/mcp/server.py'],
    ['python', ['-W', 'ignore', 'server.py'], 'server.py'],
    ['deno', ['run', '-A', '--config', 'deno.json', './main.ts'], './main.ts'],
    ['bun', ['run', 'index.ts'], 'index.ts'],
    ['bun', ['/opt/x/index.ts'], '/opt/x/index.ts'],
    ['uv', ['run', '--with', 'mcp', '--python', '3.12', 'server.py'], 'server.py'],
    ['tsx', ['src/server.ts'], 'src/server.ts'],
    ['C:\\Program Files\\nodejs\\node.exe', ['C:\\mcp\\server.js'], 'C:\\mcp\\server.js'],
  ])('%s %j runs the script %s', (command, args, script) => {
    expect(scriptArgument(command, args)?.path).toBe(script);
  });

  it.each([
    ['node', ['-e', 'console.log(1)']],
    ['python3', ['-m', 'mcp_server_fetch']],
    ['python3', ['-c', 'print(1)']],
    ['deno', ['run', 'jsr:@mcp/server']],
    ['deno', ['run', 'https://example.com/server.ts']],
    ['deno', ['server.ts']],
    ['bun', ['run', 'start']],
    ['uv', ['run', 'mcp-server-git']],
    ['uvx', ['mcp-server-fetch']],
    ['npx', ['-y', '@modelcontextprotocol/server-memory']],
    ['node', []],
  ])('%s %j runs no script file', (command, args) => {
    expect(scriptArgument(command, args)).toBeUndefined();
  });
});

describe('checkScript', () => {
  it('refuses a relative script, with the absolute path and the exact --ro when the folder is known', () => {
    const problem = checkScript(
      { command: 'node', args: ['some/dir/server.js'] },
      defaultPolicy(),
      '/home/me/proj',
    );
    expect(problem).toMatchObject({ kind: 'script-relative', argIndex: 0 });
    expect(problem?.remedy).toContain('/home/me/proj/some/dir/server.js');
    expect(problem?.remedy).toContain('--ro /home/me/proj/some/dir');
  });

  it('refuses a script outside every visible folder, naming the --ro to add', () => {
    const problem = checkScript(
      { command: 'python3', args: ['/home/me/mcp/server.py'] },
      withRoots('/home/me/data'),
    );
    expect(problem).toMatchObject({ kind: 'script-hidden', argIndex: 0 });
    expect(problem?.remedy).toContain('--ro /home/me/mcp');
  });

  it('does not take a sibling folder with a shared prefix for the root', () => {
    expect(
      checkScript({ command: 'node', args: ['/srv/app-evil/x.js'] }, withRoots('/srv/app')),
    ).toMatchObject({ kind: 'script-hidden' });
  });

  it('accepts a script inside a root, inside a system folder, or anything without a sandbox', () => {
    expect(checkScript({ command: 'node', args: ['/srv/app/x.js'] }, withRoots('/srv/app'))).toBe(
      undefined,
    );
    expect(
      checkScript({ command: 'node', args: ['/usr/lib/node_modules/x/cli.js'] }, defaultPolicy()),
    ).toBe(undefined);
    const off = { ...defaultPolicy(), isolation: 'off' as const };
    expect(checkScript({ command: 'node', args: ['rel.js'] }, off)).toBe(undefined);
  });

  it.each([
    ['uv', ['run', '--directory', '/home/me/mcp', 'server.py']],
    ['uv', ['run', '--directory=/home/me/mcp', '--with', 'mcp', 'server.py']],
    ['bun', ['--cwd', '/home/me/mcp', 'run', 'index.ts']],
  ])('finds %s %j from the folder it is told to work in', (command, args) => {
    const launch = { command, args };
    expect(checkScript(launch, withRoots('/home/me/mcp'))).toBe(undefined);
    expect(checkScript(launch, withRoots('/home/me/other'))).toMatchObject({
      kind: 'script-hidden',
      remedy: expect.stringContaining('--ro /home/me/mcp') as string,
    });
  });

  it('resolves a relative script from the launch folder, and checks where that lands', () => {
    const launch = { command: 'node', args: ['dist/index.js'], cwd: '/srv/app' };
    expect(checkScript(launch, withRoots('/srv/app'))).toBe(undefined);
    expect(
      checkScript({ ...launch, args: ['../other/x.js'] }, withRoots('/srv/app')),
    ).toMatchObject({ kind: 'script-hidden', script: '/srv/other/x.js' });
  });
});
