import { spawnSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ConfigProblem } from '../../app/contract/servers';
import type { TelemetryStatus } from '../../app/contract/telemetry';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';
import { startOtlpCollector } from '../telemetry/otlp-collector';

const bin = join(import.meta.dirname, '../../bin/warden.js');
let home = '';
tempDirEach('warden-outside-', (d) => (home = d));

/** Edits config.json by hand: the first server's network allowed to a host, and the guards. */
async function editAllowAndGuards(path: string): Promise<void> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as {
    servers: { policy: { network: { allow: string[] } } }[];
    guards?: unknown;
  };
  doc.servers[0]!.policy.network.allow = ['example.com'];
  doc.guards = { limits: { pids: 100 } };
  await writeFile(path, JSON.stringify(doc, null, 2));
}

/** The log's `policy.changed` rows, oldest first: server, changed paths, and `via` or `warden`. */
async function changeRows(cores: Awaited<ReturnType<typeof createCore>>[]): Promise<string[][]> {
  await Promise.all(cores.map((c) => c.audit.flush()));
  return (await cores[0]!.audit.query({ kind: 'policy.changed' })).rows
    .map((r) => r.event)
    .flatMap((e) =>
      e.kind === 'policy.changed' ? [[e.server ?? '', ...e.changed, e.via ?? 'warden']] : [],
    )
    .reverse();
}

/** What `editAllowAndGuards` after adding `kept` through a core leaves in the log. */
const EDITED_ROWS = [
  ['kept', '(root)', 'warden'],
  ['kept', 'policy.network.allow', 'file'],
  ['', 'guards.limits.pids', 'file'],
];

it('a server added with the CLI while the core runs is taken in, and not lost on the next write', async () => {
  const core = await createCore({ wardenHome: home });
  try {
    const seen: string[] = [];
    core.subscribe((event, payload) => {
      if (event === 'servers.changed')
        seen.push((payload as { server: { name: string } }[]).map((v) => v.server.name).join(','));
    });
    const added = spawnSync(process.execPath, [bin, 'servers', 'add', 'from-cli', '--', 'true'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(added.status).toBe(0);
    await expect
      .poll(() => core.config.getServer('from-cli')?.name, { timeout: 3000 })
      .toBe('from-cli');
    expect(seen.at(-1)).toBe('from-cli');
    // Recorded once, by the command's own core: this core took the change in without a second row.
    await core.audit.flush();
    const rows = (await core.audit.query({ kind: 'policy.changed', server: 'from-cli' })).rows;
    expect(rows).toHaveLength(1);
    // Made through Warden: the row does not say it came from the file.
    expect(rows[0]!.event).not.toHaveProperty('via');
    // The core's own next write keeps the server the CLI added.
    await core.config.addServer({
      name: 'from-core',
      launch: { command: 'true', args: [] },
      policy: core.config.getServer('from-cli')!.policy,
    });
    const listed = spawnSync(process.execPath, [bin, 'servers', 'list'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(listed.stdout).toContain('from-cli');
    expect(listed.stdout).toContain('from-core');
  } finally {
    await core.close();
  }
});

it('an unusable edit from outside is moved aside and reported; the core keeps and rewrites its own copy', async () => {
  const core = await createCore({ wardenHome: home });
  try {
    const problems: ConfigProblem[] = [];
    core.subscribe((event, payload) => {
      if (event === 'config.problem') problems.push(payload as ConfigProblem);
    });
    await core.config.addServer({
      name: 'kept',
      launch: { command: 'true', args: [] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    await writeFile(join(home, 'config.json'), '{ "schemaVersion": 1, "servers": [ broken');
    await expect.poll(() => problems.length, { timeout: 3000 }).toBe(1);
    expect(problems[0]).toMatchObject({ kind: 'corrupt' });
    expect((await readdir(home)).some((f) => f.startsWith('config.json.corrupt-'))).toBe(true);
    // The core writes its own copy back after moving the broken one aside; the list reads that.
    await expect
      .poll(() => readFile(join(home, 'config.json'), 'utf8').catch(() => ''), { timeout: 3000 })
      .toContain('"kept"');
    const listed = spawnSync(process.execPath, [bin, 'servers', 'list'], {
      env: { ...process.env, WARDEN_HOME: home },
      encoding: 'utf8',
    });
    expect(listed.stdout).toContain('kept');
  } finally {
    await core.close();
  }
});

it('settings edited by hand while the core runs: the guards, the retention and the export are changes the log records, and the export follows at once', async () => {
  const collector = await startOtlpCollector();
  const core = await createCore({ wardenHome: home, log: () => undefined });
  const path = join(home, 'config.json');
  const edit = async (change: (doc: Record<string, unknown>) => void) => {
    const doc = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    change(doc);
    await writeFile(path, JSON.stringify(doc, null, 2));
  };
  const exporting = async () => {
    const got = await core.handle('telemetry.get', {});
    return got.ok ? (got.value as TelemetryStatus).export : got.error.message;
  };
  const changes = async () => {
    await core.audit.flush();
    return (await core.audit.query({ kind: 'policy.changed' })).rows
      .map((r) => r.event)
      .flatMap((e) => (e.kind === 'policy.changed' && !e.server ? [e.changed] : []))
      .reverse();
  };
  try {
    await core.config.setGuards({ limits: { pids: 300 } });
    await edit((doc) => {
      doc.guards = { limits: { pids: 100 }, hiddenPaths: ['~/.aws'] };
      doc.audit = { retention: { maxSizeMb: 2048, maxAgeDays: 365 } };
      doc.telemetry = { endpoint: collector.endpoint, headers: { 'X-Team': 'blue' } };
    });
    await expect.poll(exporting, { timeout: 5000 }).toBe('on');
    expect(await changes()).toEqual([
      ['guards.hiddenPaths', 'guards.limits.pids'],
      ['audit.retention.maxSizeMb'],
      ['telemetry'],
    ]);
    core.audit.append({
      kind: 'instance.lifecycle',
      outcome: 'info',
      server: 'x',
      state: 'running',
    });
    await core.audit.flush();
    await expect.poll(() => collector.logRecords().length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(collector.posts.every((p) => p.headers['x-team'] === 'blue')).toBe(true);

    await edit((doc) => delete doc.telemetry);
    await expect.poll(exporting, { timeout: 5000 }).toBe('off');
    expect((await changes()).at(-1)).toEqual(['telemetry']);
    // The row saying so is the last one the collector got.
    const last = collector.logRecords().at(-1)!;
    expect(JSON.stringify(last)).toContain('policy.changed');
  } finally {
    await core.close();
    await collector.close();
  }
});

it('a hand edit taken in by two running cores is recorded once, by the first to take it in', async () => {
  const cores = [
    await createCore({ wardenHome: home, log: () => undefined }),
    await createCore({ wardenHome: home, log: () => undefined }),
  ];
  const path = join(home, 'config.json');
  try {
    await cores[0]!.config.addServer({
      name: 'kept',
      launch: { command: 'true', args: [] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    await expect
      .poll(() => cores[1]!.config.getServer('kept')?.name, { timeout: 3000 })
      .toBe('kept');
    await editAllowAndGuards(path);
    for (const core of cores)
      await expect
        .poll(() => core.config.getServer('kept')?.policy.network.allow, { timeout: 3000 })
        .toEqual(['example.com']);
    const rows = () => changeRows(cores);
    expect(await rows()).toEqual(EDITED_ROWS);
  } finally {
    for (const core of cores) await core.close();
  }
});

it('a hand edit back to a text a core took in by hand before is recorded once too', async () => {
  const path = join(home, 'config.json');
  const first = await createCore({ wardenHome: home, log: () => undefined });
  let second: Awaited<ReturnType<typeof createCore>> | undefined;
  try {
    await first.config.addServer({
      name: 'kept',
      launch: { command: 'true', args: [] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    // A hand edit only the first core takes in: it claims that text.
    const doc = JSON.parse(await readFile(path, 'utf8')) as {
      servers: { policy: { network: { allow: string[] } } }[];
    };
    doc.servers[0]!.policy.network.allow = ['example.com'];
    const edited = JSON.stringify(doc, null, 2);
    await writeFile(path, edited);
    await expect
      .poll(() => first.config.getServer('kept')?.policy.network.allow, { timeout: 3000 })
      .toEqual(['example.com']);
    second = await createCore({ wardenHome: home, log: () => undefined });
    // The first core writes a change of its own, then the file is put back by hand.
    await first.config.addServer({
      name: 'extra',
      launch: { command: 'true', args: [] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    await expect
      .poll(() => second!.config.getServer('extra')?.name, { timeout: 3000 })
      .toBe('extra');
    await writeFile(path, edited);
    for (const core of [first, second])
      await expect.poll(() => core.config.getServer('extra'), { timeout: 3000 }).toBeUndefined();
    await Promise.all([first, second].map((c) => c.audit.flush()));
    const rows = (await first.audit.query({ kind: 'policy.changed', server: 'extra' })).rows;
    // Its addition and its removal, each once.
    expect(rows).toHaveLength(2);
  } finally {
    await first.close();
    await second?.close();
  }
});

it('an edit made while no Warden ran is recorded when a core next opens, once however many open', async () => {
  const path = join(home, 'config.json');
  const before = await createCore({ wardenHome: home, log: () => undefined });
  await before.config.addServer({
    name: 'kept',
    launch: { command: 'true', args: [] },
    policy: (await import('../../app/policy/defaults')).defaultPolicy(),
  });
  await before.close();
  // Edited with nothing running: the server's network and the guards.
  await editAllowAndGuards(path);
  const cores = await Promise.all(
    [1, 2].map(() => createCore({ wardenHome: home, log: () => undefined })),
  );
  try {
    const rows = () => changeRows(cores);
    await expect.poll(rows, { timeout: 3000 }).toEqual(EDITED_ROWS);
    // Recorded once: a core opening after it finds nothing to record.
    const third = await createCore({ wardenHome: home, log: () => undefined });
    await third.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(await rows()).toHaveLength(3);
  } finally {
    for (const core of cores) await core.close();
  }
});
