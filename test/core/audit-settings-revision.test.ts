/**
 * The audit retention is never written over a change its editor did not see: shrinking it removes
 * rows at once, so a second window holding an older copy must not write back limits it showed
 * before another window (or config.json edited by hand) changed them. Every change is told to the
 * connected windows with the new settings and revision.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { AuditSettingsView } from '../../app/contract/audit-settings';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
tempDirEach('warden-audit-settings-revision-', (d) => (home = d));

async function openCore() {
  const core = await createCore({ wardenHome: home, log: () => undefined });
  const published: AuditSettingsView[] = [];
  core.subscribe((event, payload) => {
    if (event === 'audit.settingsChanged') published.push(payload as AuditSettingsView);
  });
  const view = async () => {
    const got = await core.handle('audit.settings', {});
    if (!got.ok) throw new Error(got.error.message);
    return got.value as AuditSettingsView;
  };
  const stored = async () =>
    (JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as { audit?: unknown }).audit;
  return { core, published, view, stored };
}

it('a save from a copy another change replaced is refused, and no row is removed', async () => {
  const { core, published, view, stored } = await openCore();
  try {
    const first = await view();
    expect(first).toMatchObject({ retention: { maxSizeMb: 1024, maxAgeDays: 365 } });
    // One window keeps everything for an investigation; the log holds rows 30 days old.
    const kept = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 1024, maxAgeDays: null },
      expectedRevision: first.revision,
    });
    expect(kept.ok).toBe(true);
    const after = (kept as { value: AuditSettingsView }).value;
    expect(after.revision).not.toBe(first.revision);
    expect(published.map((v) => v.revision)).toEqual([after.revision]);
    const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
    for (let i = 0; i < 5; i++)
      core.audit.append({ kind: 'limit.hit', ts: old, outcome: 'refused', limit: 'pids' });
    await core.audit.flush();

    // A second window still showing the first copy (7 days typed over 365) would prune them.
    const stale = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 1024, maxAgeDays: 7 },
      expectedRevision: first.revision,
    });
    expect(stale).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect((stale as { error: { message: string } }).error.message).toContain(
      'the audit retention changed since it was read',
    );
    expect(await stored()).toEqual({ retention: { maxSizeMb: 1024, maxAgeDays: null } });
    expect(published).toHaveLength(1);
    await core.audit.flush();
    expect((await core.audit.query({ kind: 'limit.hit' })).rows).toHaveLength(5);
    expect((await core.audit.query({ kind: 'audit.pruned' })).rows).toHaveLength(0);

    // Based on the copy it replaced, a save goes through; without a revision too.
    const fresh = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 500, maxAgeDays: null },
      expectedRevision: after.revision,
    });
    expect(fresh.ok).toBe(true);
    const plain = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 400, maxAgeDays: null },
    });
    expect(plain.ok).toBe(true);
    expect((await view()).retention).toEqual({ maxSizeMb: 400, maxAgeDays: null });
  } finally {
    await core.close();
  }
});

it('a hand edit of config.json is told to the windows and ends the older revision', async () => {
  const { core, published, view } = await openCore();
  try {
    const before = await view();
    const audit = { retention: { maxSizeMb: 2048, maxAgeDays: 90 } };
    const doc = { schemaVersion: 1, servers: [], audit };
    await writeFile(join(home, 'config.json'), JSON.stringify(doc, null, 2));
    await expect
      .poll(() => published.at(-1)?.retention, { timeout: 5000 })
      .toEqual({ maxSizeMb: 2048, maxAgeDays: 90 });
    expect(published.at(-1)!.revision).toBe((await view()).revision);
    const refused = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 1024, maxAgeDays: 1 },
      expectedRevision: before.revision,
    });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect((await view()).retention).toEqual({ maxSizeMb: 2048, maxAgeDays: 90 });
  } finally {
    await core.close();
  }
});

it('an unknown field next to the settings is refused', async () => {
  const { core } = await openCore();
  try {
    const odd = await core.handle('audit.setSettings', {
      retention: { maxSizeMb: 10, maxAgeDays: 10 },
      revision: 'x',
    });
    expect(odd).toMatchObject({ ok: false, error: { kind: 'invalid-input' } });
  } finally {
    await core.close();
  }
});
