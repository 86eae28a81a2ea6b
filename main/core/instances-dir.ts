/**
 * Where a core keeps its instances' private folders: apart from the launch code that uses it too,
 * so that the core loading beside a session's server does not load that code again.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where a core keeps its instances' private folders. */
export function instancesDirOf(wardenHome: string): string {
  // Seatbelt refuses anything inside wardenHome, so macOS keeps them in the per-user temp dir.
  return process.platform === 'darwin'
    ? join(tmpdir(), 'mcp-warden-instances')
    : join(wardenHome, 'instances');
}
