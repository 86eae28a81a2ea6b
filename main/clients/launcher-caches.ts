/**
 * A server added by hand (the Add form, `warden servers add`) gets its launcher's cache folders
 * as an imported one does: granted writable, pointed at by the launcher's variable, and created
 * when missing (a sandbox root must exist), and the user's npm settings npm inside the sandbox
 * cannot read.
 */
import { mkdir } from 'node:fs/promises';
import { withLauncherCaches } from '../../app/clients/launcher-cache';
import type { AddServerInput } from '../../app/contract/servers';
import { currentLocationContext, presetPlaces } from './client-locations';
import { builtinCatalogue } from './clients-context';
import { npmUserSettings } from './npm-user-settings';

/** `input` with its launcher's caches, and a function that creates the granted folders. */
export function withLauncherCachesFor(input: AddServerInput): {
  input: AddServerInput;
  createFolders: () => Promise<void>;
} {
  // A remote server has no launcher and no cache.
  if (!input.launch) return { input, createFolders: () => Promise.resolve() };
  const catalogue = builtinCatalogue();
  const ctx = currentLocationContext();
  const { policy, granted } = withLauncherCaches(input.launch, input.policy, catalogue, {
    ...presetPlaces(ctx),
    npmrc: npmUserSettings(ctx, catalogue),
  });
  return {
    input: { ...input, policy },
    createFolders: async () => {
      // A folder that cannot be made is reported by the launch, which refuses a missing root.
      for (const dir of granted)
        await mkdir(dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    },
  };
}
