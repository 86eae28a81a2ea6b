/**
 * A core of the test's process serving its control channel, as the app or `warden serve` runs
 * one, with a secret store of its own ("the test keychain", standing in for the app's OS
 * keychain) beside its state folder: for tests of CLI commands that go through a running core.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../../app/result';
import { listenControlChannel } from '../../main/core/control-channel';
import { type Core, createCore } from '../../main/core/core';
import { fileSecretStore } from '../../main/secrets/file-secret-store';

export interface RunningCore {
  root: string;
  wardenHome: string;
  /** The file of its secret store. */
  keychain: string;
  core: Core;
  close(): Promise<void>;
}

/** Starts one in a new temporary folder; `close` stops it and removes the folder. */
export async function startRunningCore(prefix: string): Promise<RunningCore> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const wardenHome = join(root, 'warden');
  const keychain = join(root, 'keychain.json');
  const codec = { encode: (v: string) => ok(v), decode: (v: string) => ok(v) };
  const core = await createCore({
    wardenHome,
    secretStore: fileSecretStore(keychain, codec, 'the test keychain'),
  });
  const control = await listenControlChannel(core);
  return {
    root,
    wardenHome,
    keychain,
    core,
    close: async () => {
      await control.close();
      await core.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
