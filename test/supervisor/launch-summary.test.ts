import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { failureHint, tellingLines } from '../../main/supervisor/launch-summary';

// What Node prints when its script is not visible (as inside a sandbox that lacks its folder).
const nodeMissingModule = [
  'node:internal/modules/cjs/loader:1228',
  '  throw err;',
  '  ^',
  '',
  "Error: Cannot find module '/home/ada/project/server.js'",
  '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
  '    at Module._load (node:internal/modules/cjs/loader:1051:27)',
  '    at node:internal/main/run_main_module:28:49 {',
  "  code: 'MODULE_NOT_FOUND',",
  '  requireStack: []',
  '}',
  '',
  'Node.js v20.20.2',
];

function policyWith(roots: Policy['filesystem']['roots']): Policy {
  const p = defaultPolicy();
  p.filesystem.roots = roots;
  return p;
}

const existing = (folders: string[]) => (f: string) => Promise.resolve(folders.includes(f));
const launch = { command: '/usr/bin/node', args: ['/home/ada/project/server.js'] };

describe('tellingLines', () => {
  it("puts the first error line first and drops Node's stack frames and version footer", () => {
    const lines = tellingLines(nodeMissingModule);
    expect(lines[0]).toBe("Error: Cannot find module '/home/ada/project/server.js'");
    expect(lines).not.toContain('Node.js v20.20.2');
    expect(lines.some((l) => l.startsWith('at '))).toBe(false);
    expect(lines).toContain("code: 'MODULE_NOT_FOUND',");
  });

  it('keeps the last lines when none reads as an error, and clips long lines', () => {
    expect(tellingLines(['one', 'two', 'three', 'four'])).toEqual(['two', 'three', 'four']);
    expect(tellingLines(['x'.repeat(1000)])[0]).toHaveLength(300);
    expect(tellingLines([])).toEqual([]);
  });

  it('does not repeat the error line when it is among the last ones', () => {
    expect(tellingLines(['starting', 'Error: boom'])).toEqual(['starting', 'Error: boom']);
  });
});

describe('failureHint', () => {
  it('names the folder to add for a script outside every declared folder', async () => {
    const hint = await failureHint(
      nodeMissingModule,
      policyWith([]),
      launch,
      existing(['/home/ada/project']),
    );
    expect(hint).toEqual({
      kind: 'add-folder',
      path: '/home/ada/project/server.js',
      folder: '/home/ada/project',
    });
  });

  it('offers nothing for a folder that does not exist on the host, or one already declared', async () => {
    expect(
      await failureHint(nodeMissingModule, policyWith([]), launch, existing([])),
    ).toBeUndefined();
    const declared = policyWith([{ path: '/home/ada/project', access: 'read' }]);
    expect(
      await failureHint(nodeMissingModule, declared, launch, existing(['/home/ada/project'])),
    ).toBeUndefined();
  });

  it('never offers a system folder', async () => {
    const script = '/usr/lib/node_modules/x/index.js';
    const lines = [`Error: Cannot find module '${script}'`];
    expect(
      await failureHint(
        lines,
        policyWith([]),
        { command: 'node', args: [script] },
        existing(['/usr/lib/node_modules/x']),
      ),
    ).toBeUndefined();
  });

  it('offers no folder a hostile server merely names on stderr, only one its command line names', async () => {
    const lines = ["Error: Cannot find module '/home/ada/.ssh/id_ed25519'"];
    expect(
      await failureHint(lines, policyWith([]), launch, existing(['/home/ada/.ssh'])),
    ).toBeUndefined();
  });

  it('offers read/write for a write refused inside a read-only folder', async () => {
    const lines = ["Error: EROFS: read-only file system, open '/data/notes/today.md'"];
    const hint = await failureHint(
      lines,
      policyWith([{ path: '/data/notes', access: 'read' }]),
      launch,
      existing([]),
    );
    expect(hint).toEqual({
      kind: 'make-writable',
      path: '/data/notes/today.md',
      root: '/data/notes',
    });
    // Outside every read-only root there is nothing to make writable.
    expect(await failureHint(lines, policyWith([]), launch, existing([]))).toBeUndefined();
  });

  it('offers nothing for a server that runs without a sandbox', async () => {
    const p = policyWith([]);
    p.isolation = 'off';
    expect(
      await failureHint(nodeMissingModule, p, launch, existing(['/home/ada/project'])),
    ).toBeUndefined();
  });
});
