/**
 * The global part is never written over a change its editor did not see: an update naming the
 * revision it read is refused once another (a second window, the command line, config.json edited
 * by hand) changed it, and every change is told to the connected windows with the new view.
 */
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { PolicyView } from '../../app/contract/policy';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

const bin = join(import.meta.dirname, '../../bin/warden.js');
let home = '';
tempDirEach('warden-policy-revision-', (d) => (home = d));

async function openCore() {
  const core = await createCore({ wardenHome: home, log: () => undefined });
  const published: PolicyView[] = [];
  core.subscribe((event, payload) => {
    if (event === 'policy.changed') published.push(payload as PolicyView);
  });
  const view = async () => {
    const got = await core.handle('policy.get', {});
    if (!got.ok) throw new Error(got.error.message);
    return got.value as PolicyView;
  };
  const globalRows = async () => {
    await core.audit.flush();
    return (await core.audit.query({ kind: 'policy.changed' })).rows.filter(
      (r) => r.event.kind === 'policy.changed' && !r.event.server,
    ).length;
  };
  return { core, published, view, globalRows };
}

it('an update based on a revision another change replaced is refused, and nothing is written', async () => {
  const { core, published, view, globalRows } = await openCore();
  try {
    const first = await view();
    const saved = await core.handle('policy.update', {
      guards: { network: { deny: ['*.first.test'] } },
      expectedRevision: first.revision,
    });
    expect(saved.ok).toBe(true);
    const after = (saved as { value: PolicyView }).value;
    expect(after.revision).not.toBe(first.revision);
    expect(published.map((v) => v.revision)).toEqual([after.revision]);
    expect(await globalRows()).toBe(1);

    // A second editor still holding the first view: its save would drop *.first.test.
    const stale = await core.handle('policy.update', {
      guards: { isolation: { allowOff: false } },
      expectedRevision: first.revision,
    });
    expect(stale).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect((stale as { error: { message: string } }).error.message).toContain(
      'the global policy changed since it was read',
    );
    const doc = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      guards: unknown;
    };
    expect(doc.guards).toEqual({ network: { deny: ['*.first.test'] } });
    expect(published).toHaveLength(1);
    expect(await globalRows()).toBe(1);

    // Based on the view it replaced, the same change goes through; without a revision too.
    const fresh = await core.handle('policy.update', {
      guards: { ...after.stored, isolation: { allowOff: false } },
      expectedRevision: after.revision,
    });
    expect(fresh.ok).toBe(true);
    expect((await view()).stored).toEqual({
      network: { deny: ['*.first.test'] },
      isolation: { allowOff: false },
    });
  } finally {
    await core.close();
  }
});

it('a hand edit and a command-line edit are told to the windows, and end an older revision', async () => {
  const { core, published, view } = await openCore();
  try {
    expect((await core.handle('policy.update', { guards: { limits: { pids: 50 } } })).ok).toBe(
      true,
    );
    const before = await view();
    const path = join(home, 'config.json');
    const doc = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    doc.guards = { limits: { pids: 100 } };
    await writeFile(path, JSON.stringify(doc, null, 2));
    await expect.poll(() => published.at(-1)?.stored, { timeout: 5000 }).toEqual(doc.guards);
    expect(published.at(-1)!.revision).toBe((await view()).revision);
    const refused = await core.handle('policy.update', {
      guards: {},
      expectedRevision: before.revision,
    });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'conflict' } });

    const edited = spawnSync(process.execPath, [bin, 'policy', 'edit', '--deny', '*.cli.test'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(edited.stderr).toBe('');
    expect(edited.status).toBe(0);
    await expect
      .poll(() => published.at(-1)?.stored, { timeout: 5000 })
      .toEqual({ limits: { pids: 100 }, network: { deny: ['*.cli.test'] } });
  } finally {
    await core.close();
  }
});
