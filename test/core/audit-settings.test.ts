/**
 * The audit settings through the contract, as the UI sets them: saved in config.json, refused
 * when out of range, recorded in the log and applied to it at once, and the core writes the head
 * file that verify compares with.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
tempDirEach('warden-audit-settings-', (d) => (home = d));

it('retention set through the contract is saved, validated and applied to the log', async () => {
  const core = await createCore({ wardenHome: home });
  try {
    expect(await core.handle('audit.settings', {})).toMatchObject({
      ok: true,
      value: { retention: { maxSizeMb: 1024, maxAgeDays: 365 } },
    });
    const bad = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 0, maxAgeDays: 7 },
    });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid-input' } });
    const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
    for (let i = 0; i < 20; i++) {
      core.audit.append({ kind: 'limit.hit', ts: old, outcome: 'refused', limit: 'memoryMb' });
    }
    core.audit.append({ kind: 'limit.hit', outcome: 'refused', limit: 'pids' });
    await core.audit.flush();
    const saved = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: null, maxAgeDays: 7 },
    });
    expect(saved).toMatchObject({
      ok: true,
      value: { retention: { maxSizeMb: null, maxAgeDays: 7 } },
    });
    // How long the log keeps its rows is a change the log records.
    await core.audit.flush();
    expect((await core.audit.query({ kind: 'policy.changed' })).rows[0]?.event).toMatchObject({
      changed: ['audit.retention.maxAgeDays', 'audit.retention.maxSizeMb'],
    });
    const onDisk = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      audit?: unknown;
    };
    expect(onDisk.audit).toEqual({ retention: { maxSizeMb: null, maxAgeDays: 7 } });
    await expect
      .poll(async () => (await core.audit.query({ kind: 'audit.pruned' })).rows.length, {
        timeout: 3000,
      })
      .toBe(1);
    await core.audit.flush();
    expect(core.audit.verify()).toMatchObject({ ok: true, prunedThrough: 20, headChecked: true });
  } finally {
    await core.close();
  }
  const head = JSON.parse(await readFile(join(home, 'audit-head.json'), 'utf8')) as { id: number };
  // 21 rows, the policy change, the pruning row.
  expect(head.id).toBe(23);
});
