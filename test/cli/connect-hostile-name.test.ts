/**
 * `warden connect NAME` where NAME comes from an AI client's config file: the line that says no
 * such server exists (the client logs it, or a terminal shows it) carries the name escaped,
 * whether the connect runs its own core or joins a running one.
 */
import { expect, it } from 'vitest';
import { createCore } from '../../main/core/core';
import { startFrontDoors } from '../../main/gateway/front-doors';
import { hostile, rawControls } from '../fixtures/hostile-text';
import { tempDirEach } from '../helpers/temp-dir';
import { runWarden } from '../helpers/warden-bin';

let home = '';
tempDirEach('warden-connect-name-', (d) => (home = d));

const name = `notes${hostile.osc52}${hostile.bidi}`;
const env = () => ({ PATH: process.env.PATH ?? '', HOME: home, WARDEN_HOME: home });

it('standalone: the unknown name is shown escaped', async () => {
  const run = await runWarden(['connect', name], env());
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('no server named "notes\\x1b]52;c;');
  expect(run.stderr).toContain('\\u202egnp.exe\\u202c');
  expect(rawControls(run.stderr)).toEqual([]);
});

it('joining a running core: the unknown name is shown escaped', async () => {
  const core = await createCore({ wardenHome: home, log: () => undefined });
  const doors = await startFrontDoors(core, { httpPort: 0 });
  try {
    const run = await runWarden(['connect', name], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no server named "notes\\x1b]52;c;');
    expect(rawControls(run.stderr)).toEqual([]);
  } finally {
    await doors.close();
    await core.close();
  }
});
