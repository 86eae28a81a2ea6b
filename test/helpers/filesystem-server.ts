/**
 * The real `@modelcontextprotocol/server-filesystem`, sandboxed, as a test server: started on
 * `folder` (read-only), with the repository's node_modules readable so that it can load.
 */
import { join } from 'node:path';
import { defaultPolicy } from '../../app/policy/defaults';
import type { ConfigStore } from '../../main/config/config-store';

export const repoModules = join(import.meta.dirname, '../../node_modules');

/** Adds server `name` (confirmed) to `config`: server-filesystem on `folder`, read-only. */
export async function addFilesystemServer(
  config: ConfigStore,
  name: string,
  folder: string,
): Promise<void> {
  const policy = defaultPolicy();
  policy.filesystem.roots.push(
    { path: folder, access: 'read' },
    { path: repoModules, access: 'read' },
  );
  await config.addServer({
    name,
    launch: {
      command: process.execPath,
      args: [join(repoModules, '@modelcontextprotocol/server-filesystem/dist/index.js'), folder],
    },
    policy,
    acknowledged: true,
  });
}
