/**
 * The kept verification results, one per backend: two results kept at the same moment (two
 * processes verifying two backends) are both kept.
 */
import { expect, it } from 'vitest';
import { tempDirEach } from '../../../test/helpers/temp-dir';
import { loadVerifications, saveVerification } from './verification-store';

let home = '';
tempDirEach('warden-verifications-', (d) => (home = d));

const result = (backend: string, at: string) => ({
  backend,
  at,
  passed: true,
  probes: [],
  host: { kernel: '6.12' },
});

it('keeps a result for every backend when several are kept at once', async () => {
  const backends = ['bwrap 0.8.0', 'landlock ABI 7', 'seatbelt', 'bwrap 0.9.0'];
  await Promise.all(
    backends.flatMap((b) => [1, 2].map((n) => saveVerification(home, result(b, `t${n}`)))),
  );
  const kept = await loadVerifications(home);
  expect(kept.map((v) => v.backend).sort()).toEqual([...backends].sort());
});
