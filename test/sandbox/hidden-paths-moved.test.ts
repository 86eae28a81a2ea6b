/**
 * Escape suite: a server that may write a folder holding Warden's state, or a credential folder
 * hidden by its path (`~/.config/gh`), tries to rename a folder above it. Had it worked, the mask
 * would have moved away with the folder: the next launch, looking for the paths by their names,
 * would have found nothing to mask, shown the credentials under the new name, and read a state
 * folder the server planted in place of Warden's (with its own servers, unsandboxed). The folders
 * on the way are mount points inside the bubblewrap sandbox, and may only be listed under Landlock,
 * so the rename is refused; the rest of the writable folder still moves freely.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedHostEnv, sandboxRequired, sandboxStatus, sh } from './harness';

const status = await sandboxStatus();
/** A mount point is busy under bubblewrap; Landlock grants no rename there. */
const refusal = status.backend === 'landlock' ? /permission denied/i : /busy/i;

describe('linux sandbox availability (moved hidden paths)', () => {
  it.skipIf(status.usable || !sandboxRequired)('is required by WARDEN_REQUIRE_SANDBOX=1', () => {
    expect.fail(`the sandbox cannot run here: ${status.reason}`);
  });
});

describe.skipIf(!status.usable)('escape: renaming the folders that hold a masked path', () => {
  let home: string;
  let state: string;
  let hostEnv: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(userInfo().homedir, '.warden-moved-home-'));
    await mkdir(join(home, '.config', 'gh'), { recursive: true });
    await writeFile(join(home, '.config', 'gh', 'hosts.yml'), 'GH-TOKEN-SECRET\n');
    await mkdir(join(home, 'other'));
    state = join(home, 'nest', 'a', 'state');
    await mkdir(state, { recursive: true, mode: 0o700 });
    await writeFile(join(state, 'config.json'), '{"servers":{}}\n');
    hostEnv = isolatedHostEnv(home, state);
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('cannot rename a folder above a credential folder hidden by its path', async () => {
    const r = await sh(
      ['--rw', home],
      `cd ${home} && mv .config .moved && echo MOVED; cat .moved/gh/hosts.yml .config/gh/hosts.yml`,
      hostEnv,
    );
    expect(r.stdout).not.toContain('MOVED');
    expect(r.stdout).not.toContain('GH-TOKEN-SECRET');
    expect(r.stderr).toMatch(refusal);
    // The next launch still finds it where it was, and masks it.
    const again = await sh(['--rw', home], `cat ${home}/.config/gh/hosts.yml`, hostEnv);
    expect(again.stdout).not.toContain('GH-TOKEN-SECRET');
  });

  it("cannot rename a folder above Warden's state to plant its own in its place", async () => {
    const r = await sh(['--rw', home], `cd ${home} && mv nest/a nest/b && echo MOVED`, hostEnv);
    expect(r.stdout).not.toContain('MOVED');
    expect(r.stderr).toMatch(refusal);
    // What the server writes over the state folder lands in the empty folder that masks it.
    await sh(['--rw', home], `echo PLANTED > ${state}/config.json`, hostEnv);
    expect(await readFile(join(state, 'config.json'), 'utf8')).toBe('{"servers":{}}\n');
    await expect(readFile(join(home, 'nest', 'b', 'state', 'config.json'))).rejects.toThrow();
  });

  it('still renames and writes the rest of the writable folder', async () => {
    // Under Landlock the folders on the way take no new entry: the rest is what lies below them.
    const where = status.backend === 'landlock' ? `${home}/other` : home;
    await mkdir(join(where, 'other'), { recursive: true });
    const r = await sh(
      ['--rw', home],
      `cd ${where} && mv other renamed && echo hi > renamed/file && cat renamed/file`,
      hostEnv,
    );
    expect(r.stdout).toBe('hi\n');
    expect(r.code).toBe(0);
  });
});
