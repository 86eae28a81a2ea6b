import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apparmorProfileRemedy } from './apparmor-remedy';

describe('the AppArmor remedy doctor shows', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'warden-aa-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes the profile when no copy exists, installs the packaged copy, or loads it', async () => {
    const installed = join(dir, 'mcp-warden-bwrap');
    const packaged = join(dir, 'packaged');
    const paths = { installed, packaged };
    const written = await apparmorProfileRemedy('/usr/bin/bwrap', paths);
    expect(written).toContain(
      `printf '%s\\n' 'abi <abi/4.0>,' 'include <tunables/global>' 'profile mcp-warden-bwrap /usr/bin/bwrap flags=(unconfined) {' '  userns,' '}' | sudo tee ${installed} >/dev/null && sudo apparmor_parser -r ${installed}`,
    );
    await writeFile(packaged, 'profile');
    expect(await apparmorProfileRemedy('/usr/bin/bwrap', paths)).toContain(
      `sudo install -m 0644 '${packaged}' ${installed} && sudo apparmor_parser -r ${installed}`,
    );
    await writeFile(installed, 'profile');
    expect(await apparmorProfileRemedy('/usr/bin/bwrap', paths)).toBe(
      `the profile ${installed} is installed but not in effect: load it with \`sudo apparmor_parser -r ${installed}\``,
    );
  });
});
