import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { runServersCommand } from '../../main/cli/servers-command';
import { listWithoutCore } from '../../main/cli/servers-list';
import { ConfigStore } from '../../main/config/config-store';
import { readRecordedConfig } from '../../main/config/validated-config-cache';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-list-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) },
  };
};

describe('servers list without a core', () => {
  it('prints what the whole core prints, and answers nothing else', async () => {
    const core = await createCore({ wardenHome: home });
    for (const [name, isolation] of [
      ['boxed', 'sandbox'],
      ['bare\u001b[2J', 'off'],
    ] as const) {
      await core.config.addServer({
        name: name.replace(/\W/g, ''),
        launch: { command: '/bin/echo', args: [name] },
        policy: { ...defaultPolicy(), isolation },
        acknowledged: true,
      });
    }
    const whole = capture();
    const wholeJson = capture();
    await runServersCommand(['list'], whole.io, core);
    await runServersCommand(['list', '--json'], wholeJson.io, core);
    const sandboxUsable = core.hostReport().backend.available;
    await core.close();

    for (const schemaId of [undefined, 'schema-a']) {
      // Without a schema identity the store validates; with one, the second open records the
      // bytes and the listing reads them without the schemas.
      if (schemaId) await (await ConfigStore.open({ wardenHome: home, schemaId })).flush();
      expect(readRecordedConfig(home, schemaId) !== undefined).toBe(schemaId !== undefined);
      const light = capture();
      const lightJson = capture();
      const status = await listWithoutCore([], light.io, home, { schemaId });
      if (status === undefined) {
        // Only a host whose recent facts allow sandboxing takes this path.
        expect(process.platform !== 'linux' || !sandboxUsable).toBe(true);
        return;
      }
      expect(await listWithoutCore(['--json'], lightJson.io, home, { schemaId })).toBe(0);
      expect(light.out).toEqual(whole.out);
      expect(lightJson.out).toEqual(wholeJson.out);
      expect(light.err).toEqual([]);
    }
    expect(await listWithoutCore(['--bogus'], capture().io, home)).toBeUndefined();
  });
});
