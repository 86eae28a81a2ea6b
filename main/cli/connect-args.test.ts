import { describe, expect, it } from 'vitest';
import { LEAF_COMMANDS } from './command-specs';
import { CONNECT_FLAGS, isPlainConnect } from './connect-args';
import { asksForHelp, unknownFlag } from './help';

const connectSpec = LEAF_COMMANDS.find((c) => c.path[0] === 'connect')!;

describe('isPlainConnect', () => {
  it('names exactly the flags of the connect command, each taking a value', () => {
    expect([...CONNECT_FLAGS].sort()).toEqual(connectSpec.flags.map((f) => f.name).sort());
    expect(connectSpec.flags.every((f) => f.value !== undefined)).toBe(true);
  });

  const plain = [
    ['connect', 'fs'],
    ['connect', 'fs', '--client', 'claude-desktop'],
    ['connect', '--client', 'cursor', 'fs'],
    ['connect', 'fs', '--client=vs code', '--max-message-bytes', '1048576'],
    ['connect', 'fs', '--max-message-bytes=4096'],
    ['connect'],
    ['connect', 'a', 'b'],
  ];
  it.each(plain)('takes %j straight to the connect command', (...argv) => {
    expect(isPlainConnect(argv)).toBe(true);
    // The full command line would hand these arguments to the connect command unchanged.
    const args = argv.slice(1);
    expect(asksForHelp(args)).toBe(false);
    expect(unknownFlag(connectSpec, args)).toBeUndefined();
  });

  const full = [
    ['connect', '--help'],
    ['connect', 'fs', '-h'],
    ['connect', 'fs', '--version'],
    ['connect', 'fs', '--verbose'],
    ['connect', 'fs', '--client'],
    ['connect', 'fs', '--client', '--help'],
    ['connect', 'fs', '--clientx=1'],
    ['connect', 'fs', '--', 'x'],
    ['connect', '-'],
    ['servers', 'list'],
    ['--version'],
    [],
    ['help', 'connect'],
  ];
  it.each(full)('leaves %j to the full command line', (...argv) => {
    expect(isPlainConnect(argv)).toBe(false);
  });
});
