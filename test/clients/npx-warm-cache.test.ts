/**
 * An npx server started through `warden exec` with the policy the npx preset proposes finds the
 * package in the granted npm cache the second time: the second launch runs with no network at
 * all. The home here is outside /home and /root, so the sandbox's HOME is an empty private
 * folder and npm would look for its cache there (and download every time) if the preset did not
 * point `npm_config_cache` at the folder it grants.
 */
import { lookup } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposePolicy } from '../../app/clients/propose-policy';
import { presetCatalogueSchema } from '../../app/clients/preset-types';
import catalogueJson from '../../resources/presets/catalogue.json';
import { sandboxStatus } from '../sandbox/harness';
import { runWarden } from '../helpers/warden-bin';

const root = join(import.meta.dirname, '..', '..');
const status = await sandboxStatus();
const registry = await lookup('registry.npmjs.org').catch(() => undefined);
const skip = !existsSync(join(root, 'out', 'cli', 'warden.mjs'))
  ? 'the build (out/) is missing: run npm run build'
  : !status.usable
    ? 'no usable sandbox on this host'
    : registry === undefined
      ? 'registry.npmjs.org does not resolve from this host'
      : undefined;
// A small package with a bin and no dependencies keeps the download short.
const PACKAGE = ['-y', 'semver@7.7.2', '1.2.3'];

describe.skipIf(skip !== undefined)(
  `npx from a warm cache in the sandbox${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let home: string;
    let env: Record<string, string>;
    let rootFlags: string[];
    let presetEnv: Record<string, string>;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'warden-npx-home-'));
      // The folder a user of npm has; empty: nothing is cached yet.
      await mkdir(join(home, '.npm'));
      env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        LANG: 'C.UTF-8',
        WARDEN_HOME: join(home, 'warden'),
      };
      const places = { home, cache: join(home, '.cache'), dataHome: join(home, '.local/share') };
      const proposal = proposePolicy(
        { command: 'npx', args: PACKAGE },
        {},
        presetCatalogueSchema.parse(catalogueJson),
        places,
      );
      rootFlags = proposal.policy.filesystem.roots.flatMap((r) => [
        r.access === 'write' ? '--rw' : '--ro',
        r.path,
      ]);
      presetEnv = {};
      for (const [key, value] of Object.entries(proposal.policy.env.set))
        if (value.kind === 'plain') presetEnv[key] = value.value;
    });
    afterAll(() => rm(home, { recursive: true, force: true }));

    const setEnv = (vars: Record<string, string>) =>
      Object.entries(vars).flatMap(([k, v]) => ['--set-env', `${k}=${v}`]);

    it('the second launch needs no network: the package is in the granted cache', async () => {
      expect(presetEnv.npm_config_cache).toBe(join(home, '.npm'));
      const first = await runWarden(
        [
          'exec',
          ...rootFlags,
          ...setEnv(presetEnv),
          '--net',
          'allowlist',
          '--allow',
          'registry.npmjs.org',
          '--allow-address',
          registry!.address,
          '--',
          'npx',
          ...PACKAGE,
        ],
        env,
      );
      expect(first, first.stderr).toMatchObject({ code: 0, stdout: '1.2.3\n' });
      // npm wrote its cache and the npx install into the granted folder, not the sandbox's home.
      expect(await readdir(join(home, '.npm'))).toEqual(
        expect.arrayContaining(['_cacache', '_npx']),
      );

      const offline = { npm_config_offline: 'true' };
      const second = await runWarden(
        [
          'exec',
          ...rootFlags,
          ...setEnv({ ...presetEnv, ...offline }),
          '--net',
          'none',
          '--',
          'npx',
          ...PACKAGE,
        ],
        env,
      );
      expect(second, second.stderr).toMatchObject({ code: 0, stdout: '1.2.3\n' });

      // Control: without the preset's variable npm looks in the sandbox's empty home and, with no
      // network, cannot start the package.
      const cold = await runWarden(
        ['exec', ...rootFlags, ...setEnv(offline), '--net', 'none', '--', 'npx', ...PACKAGE],
        env,
      );
      expect(cold.code).not.toBe(0);
      expect(cold.stdout).toBe('');
    }, 240_000);
  },
);
