/**
 * A folder inside a root that the hidden-path search could not read (its mode bits, a security
 * module's EPERM, an I/O error) is masked whole by bubblewrap; the Landlock backend gives it no
 * rule at all, so nothing in it is reachable, and grants the rest of the root entry by entry. The
 * errors are injected into `readdirSync`, which both the search and the grants read with.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readdirFailures } from '../../../../test/helpers/failing-readdir';
import { defaultPolicy } from '../../../../app/policy/defaults';
import { usableHostFacts } from '../../../../test/helpers/host-facts';
import { linuxBackend } from './choose-linux-backend';

vi.mock('node:fs', async (importOriginal) =>
  (await import('../../../../test/helpers/failing-readdir')).withFailingReaddir(
    await importOriginal(),
  ),
);

let dir: string;
let root: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-ll-unreadable-'));
  root = join(dir, 'project');
  await mkdir(join(root, 'locked'), { recursive: true });
  await writeFile(join(root, 'readme.txt'), 'hello');
});
afterEach(async () => {
  readdirFailures.clear();
  await rm(dir, { recursive: true, force: true });
});

async function launcherArgs(): Promise<string[]> {
  const ll = linuxBackend({
    choice: 'landlock',
    facts: usableHostFacts(),
    landlock: { ok: true, launcher: '/opt/ll', abi: 7 },
  });
  const policy = defaultPolicy();
  policy.filesystem.roots.push({ path: root, access: 'read' });
  const ctx = {
    instanceDir: join(dir, 'instance'),
    hostEnv: { PATH: '/usr/bin:/bin' },
    secrets: {},
  };
  await mkdir(ctx.instanceDir);
  const plan = await ll.compile(policy, { command: '/bin/true', args: [] }, ctx);
  if (!plan.ok) throw new Error(plan.error.message);
  return plan.value.argv;
}

/** The launcher's path options, each with its path. */
const pathOptions = (argv: string[]) =>
  argv.flatMap((a, i) => (/^--(lsn|rxn|rwn)$/.test(a) ? [`${a} ${argv[i + 1]}`] : []));

describe('Landlock and a folder the hidden-path search could not read', () => {
  for (const code of ['EPERM', 'EIO', 'EACCES']) {
    it(`gives it nothing and the rest of the root read (${code})`, async () => {
      readdirFailures.set(join(root, 'locked'), code);
      const options = pathOptions(await launcherArgs());
      expect(options).toContain(`--lsn ${root}`);
      expect(options).toContain(`--rxn ${join(root, 'readme.txt')}`);
      expect(options.filter((o) => o.includes('locked'))).toEqual([]);
    });
  }

  it('gives a hidden path in a folder it can read nothing, and the folder a listing', async () => {
    await writeFile(join(root, 'locked', '.env'), 'SECRET=1');
    const options = pathOptions(await launcherArgs());
    expect(options).toContain(`--lsn ${join(root, 'locked')}`);
    expect(options.filter((o) => o.includes('.env'))).toEqual([]);
  });
});
