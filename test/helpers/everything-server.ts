/** server-everything, the SDK's reference server, as the tests start it. */
import { join } from 'node:path';
import { type WardenRun, runWarden } from './warden-bin';

export const everythingServer = join(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

/** `warden servers add everything --isolation off FLAGS… -- node server-everything`. */
export function addEverythingServer(
  env: Record<string, string>,
  ...flags: string[]
): Promise<WardenRun> {
  return runWarden(
    [
      'servers',
      'add',
      'everything',
      '--isolation',
      'off',
      ...flags,
      '--',
      process.execPath,
      everythingServer,
    ],
    env,
  );
}
