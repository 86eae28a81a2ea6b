import { expect, it } from 'vitest';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { refusalLines } from './refusal-lines';

function refused(host: string, ms: number, message = `${host}:443 is not allowed`) {
  const e: EgressDecisionEvent = {
    kind: 'egress',
    instance: 'exec#1',
    server: 'exec',
    host,
    port: 443,
    decision: 'refused',
    reason: 'not-allowed',
    message,
    bytesUp: 0,
    bytesDown: 0,
    durationMs: 0,
    at: new Date(ms).toISOString(),
  };
  return e;
}

it('prints the first refusal, then the repeats as one counted line when the window ends', () => {
  let t = 0;
  let text = '';
  const lines = refusalLines({ write: (s) => (text += s), now: () => t });
  for (let i = 0; i < 50; i++) lines.decided(refused('evil.test', i * 10));
  t = 6000;
  lines.decided(refused('evil.test', 6000));
  lines.stop();
  expect(text).toBe(
    'warden: refused evil.test:443: evil.test:443 is not allowed\n' +
      'warden: refused evil.test:443 49 more times in 0.5 s\n' +
      'warden: refused evil.test:443 1 more time in 0.0 s\n',
  );
});

it('summarises past its line budget, and shows control characters in names visibly', () => {
  let text = '';
  const lines = refusalLines({ write: (s) => (text += s), budgetLines: 2, now: () => 0 });
  lines.decided(refused('\x1b[2Jx.test', 0));
  for (let i = 0; i < 30; i++) lines.decided(refused(`h${i}.test`, i));
  lines.stop();
  const out = text.trim().split('\n');
  expect(out).toHaveLength(3);
  expect(out[0]).toContain('refused \\x1b[2Jx.test:443');
  expect(out[2]).toMatch(
    /^warden: 29 more refusals not shown \(more than 2 lines in 10 s\): h1\.test:443 ×1, /,
  );
  expect(out[2]).toContain('others ×21');
});

it('prints nothing for allowed connections or ask-mode timeouts (those say why elsewhere)', () => {
  let text = '';
  const lines = refusalLines({ write: (s) => (text += s) });
  lines.decided({ ...refused('a.test', 0), decision: 'allowed' });
  lines.decided({ ...refused('b.test', 0), reason: 'ask-timeout' });
  lines.stop();
  expect(text).toBe('');
});
