/**
 * The Landlock backend cannot mask a folder inside a root, so it refuses a root holding one the
 * hidden-path search could not read; the refusal says why it could not (its mode bits, a security
 * module's EPERM, an I/O error) rather than calling it a hidden path. The errors are injected
 * into `readdirSync`, which both the search and the refusal read with.
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

async function refusal(): Promise<{ kind: string; message: string; remedy?: string }> {
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
  if (plan.ok) throw new Error('the root was accepted');
  return plan.error;
}

describe('Landlock and a folder the hidden-path search could not read', () => {
  it('says a security module denied it (EPERM)', async () => {
    readdirFailures.set(join(root, 'locked'), 'EPERM');
    const error = await refusal();
    expect(error.kind).toBe('root-invalid');
    expect(error.message).toContain(`${join(root, 'locked')} is a folder Warden could not read`);
    expect(error.message).toContain('(EPERM)');
    expect(error.message).not.toContain('is hidden from servers');
    expect(error.remedy).toContain('security module');
  });

  it('says an I/O error kept it out', async () => {
    readdirFailures.set(join(root, 'locked'), 'EIO');
    const error = await refusal();
    expect(error.message).toContain('could not read (EIO)');
    expect(error.remedy).toContain('once it can be read');
  });

  it('says its permissions keep this user out (EACCES), with the chmod that lets it in', async () => {
    readdirFailures.set(join(root, 'locked'), 'EACCES');
    const error = await refusal();
    expect(error.message).toContain(`${join(root, 'locked')} is a folder Warden may not list`);
    expect(error.remedy).toContain('chmod u+r');
  });

  it('still names a hidden path by what it is once every folder can be read', async () => {
    await writeFile(join(root, 'locked', '.env'), 'SECRET=1');
    const error = await refusal();
    expect(error.message).toContain(`${join(root, 'locked', '.env')} is hidden from servers`);
  });
});
